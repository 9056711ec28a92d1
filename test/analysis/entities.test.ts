// Entities a semantic cache hit must agree on (docs/semantic-cache.md "Literal guard"): numbers,
// dates, e-mails, URLs, ids, quoted strings, names and negations, as the analyzer extracts them.
import { describe, expect, test } from "bun:test";
import { analyzeRequest, type Entities } from "../../src/analysis/analyzer.ts";
import { MAX_PER_LIST } from "../../src/analysis/entities.ts";

const entities = (text: string): Entities =>
  analyzeRequest({ model: "gw-auto", messages: [{ role: "user", content: text }] }, { inputTokensBound: text.length }).entities;

describe('entities a semantic hit must agree on (docs/semantic-cache.md "Literal guard")', () => {
  test("numbers keep their form, percent and currency", () => {
    const e = entities("Prices rose 42% to $1,299.99 and then 3.5 more, about 1,000 units.");
    expect(e.numbers).toEqual(["42%", "$1,299.99", "3.5", "1,000"]);
  });

  test("dates: ISO, numeric, times, month names in several languages, relative days", () => {
    expect(entities("Due 2024-05-01, review on 01/06/2024 at 14:30.").dates).toEqual(["2024-05-01", "01/06/2024", "14:30"]);
    expect(entities("I ordered it on May 5, 2024 and it shipped 7 June.").dates).toEqual(["may 5, 2024", "7 june"]);
    expect(entities("Le 3 mars 2024 et le 12. Mai.").dates).toEqual(["3 mars 2024", "12. mai"]);
    expect(entities("the 3rd of March").dates).toEqual(["3rd of march"]);
    expect(entities("Can we meet tomorrow or on Friday?").dates).toEqual(["tomorrow", "friday"]);
  });

  test("an ambiguous month word is a date only next to a number", () => {
    expect(entities("You may go now.").dates).toEqual([]);
    expect(entities("Deadline: 5 May.").dates).toEqual(["5 may"]);
    // The day number joins the date instead of the numbers.
    expect(entities("Deadline: 5 May.").numbers).toEqual([]);
  });

  test("e-mails and URLs, without trailing punctuation, and not read as words", () => {
    const e = entities("Write to Jane.Doe@Example.com or see https://example.com/docs?q=1. Also www.example.org/weather.");
    expect(e.emails).toEqual(["jane.doe@example.com"]);
    expect(e.urls).toEqual(["https://example.com/docs?q=1", "www.example.org/weather"]);
  });

  test("ids: order numbers, SKUs, UUIDs, codes mixing letters and digits", () => {
    const e = entities("Order #12345, ref ORD-77812, SKU AB-778-X, id 550e8400-e29b-41d4-a716-446655440000, code A1B2C3, tracking 1234567890");
    expect(e.ids).toEqual(["#12345", "ORD-77812", "AB-778-X", "550e8400-e29b-41d4-a716-446655440000", "A1B2C3", "1234567890"]);
    expect(e.numbers).toEqual([]);
  });

  test("quoted strings in straight, curly, guillemet and CJK quotes; apostrophes are not quotes", () => {
    const e = entities(`Say "hello world", then “good night”, «bonne nuit», 「こんにちは」 and 'hey jude'. Don't split the students' books.`);
    expect(e.quoted).toEqual(["hello world", "good night", "bonne nuit", "こんにちは", "hey jude"]);
  });

  test("names: capitalised words not at a sentence start, adjacent ones joined", () => {
    const e = entities("I met Ada Lovelace and Charles Babbage in London. Paris was next.");
    expect(e.names).toEqual(["Ada Lovelace", "Charles Babbage", "London"]);
  });

  test("negations in the supported languages, including curly apostrophes and CJK", () => {
    expect(entities("Coffee without sugar, not too hot, never with milk, and don’t stir.").negations).toEqual(["without", "not", "never", "don't"]);
    expect(entities("Kein Zucker, sans lait, sin azúcar, senza latte, sem açúcar, zonder melk, без сахара").negations).toEqual(["kein", "sans", "sin", "senza", "sem", "zonder", "без"]);
    expect(entities("咖啡不要糖").negations).toEqual(["不"]);
  });

  test("with and without differ only in their negations", () => {
    const a = entities("Recipe for pancakes with eggs");
    const b = entities("Recipe for pancakes without eggs");
    expect(a.negations).toEqual([]);
    expect(b.negations).toEqual(["without"]);
  });

  test("lists stay bounded on long inputs", () => {
    const text = Array.from({ length: 200 }, (_, i) => `item ${i * 7 + 3}`).join(", ");
    expect(entities(text).numbers.length).toBe(MAX_PER_LIST);
  });

  test("code fences are skipped: quotes, names and numbers inside them are not collected", () => {
    const e = entities("Why does this fail?\n```js\nconst Url = \"https://x.test\"; // Not 42\n```");
    expect(e.quoted).toEqual([]);
    expect(e.names).toEqual([]);
    expect(e.numbers).toEqual([]);
  });
});
