// whitespace's precheck (src/optimization/stages/whitespace.ts): skipping texts it finds nothing to
// collapse in never changes the stage's output, on 100k random texts and every corpus message.
import { describe, expect, test } from "bun:test";
import { messageText } from "../../src/analysis/tokens.ts";
import { collapseLines, collapseWhitespace } from "../../src/optimization/stages/whitespace.ts";
import { loadCorpus } from "../fixtures/optimization/corpus.ts";

function randomTexts(count: number): string[] {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const alpha = [" ", " ", "  ", "\t", "\u00a0", "\n", "\n", "\r\n", "\r", "a", "bc", "1.", "- ", "`", "```", "<pre>", "</pre>", "{", "}", '"', "    ", "x".repeat(60)];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = "";
    for (let k = Math.floor(next() * 24); k > 0; k--) s += alpha[Math.floor(next() * alpha.length)];
    out.push(s);
  }
  return out;
}

describe("whitespace precheck", () => {
  test("the same output as the full pass on 100k random texts", () => {
    const differ = randomTexts(100_000).filter((t) => collapseWhitespace(t) !== collapseLines(t));
    expect(differ.slice(0, 5)).toEqual([]);
  });

  test("the same output on every corpus message; texts with nothing to collapse pass untouched", () => {
    const texts = loadCorpus().flatMap((c) => c.request.messages.map(messageText));
    expect(texts.filter((t) => collapseWhitespace(t) !== collapseLines(t)).length).toBe(0);
    for (const t of ["one line", "a\n\nb\r\n\r\nc\n", "\r\nx", "- a\n- b"]) expect(collapseWhitespace(t)).toBeNull();
    expect(collapseWhitespace("a \nb")).toBe("a\nb");
    expect(collapseWhitespace("a\n\n\nb")).toBe("a\n\nb");
    expect(collapseWhitespace("a\u00a0b")).toBe("a b");
  });
});
