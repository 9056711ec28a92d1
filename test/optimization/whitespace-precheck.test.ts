// whitespace's precheck (src/optimization/stages/whitespace.ts): skipping texts it finds nothing to
// collapse in never changes the stage's output; its verify equal to a line-splitting reference.
import { describe, expect, test } from "bun:test";
import { messageText } from "../../src/analysis/tokens.ts";
import { jsonSpans } from "../../src/optimization/json-text.ts";
import { collapseLines, collapseWhitespace, whitespace } from "../../src/optimization/stages/whitespace.ts";
import { loadCorpus } from "../fixtures/optimization/corpus.ts";
import { makeCtx } from "./stages/ctx.ts";

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

// whitespace's verify compares indentation in place; the reference splits the lines (as it did before).
const indentsOf = (text: string): string =>
  text.split("\n").map((line) => {
    let i = 0;
    while (i < line.length && (line[i] === " " || line[i] === "\t" || line[i] === "\u00a0")) i++;
    return i < line.length && line[i] !== "\r" ? `${line.slice(0, i)}|` : "";
  }).join("");
const inkOf = (text: string): string => text.replace(/[ \t\n\r\u00a0]/g, "");

describe("whitespace verify", () => {
  test("holds exactly when the ink and the indentation of non-blank lines are the same, on 50k random pairs", () => {
    const texts = randomTexts(100_000);
    const wrong: string[][] = [];
    for (let i = 0; i + 1 < texts.length; i += 2) {
      const a = texts[i]!;
      // Half the pairs are the stage's own output, half an unrelated text with the same ink or not.
      const b = i % 4 === 0 ? (collapseWhitespace(a) ?? a) : texts[i + 1]!;
      const req = (content: string) => ({ model: "m", messages: [{ role: "user" as const, content }] });
      const expected = inkOf(a) === inkOf(b) && indentsOf(a) === indentsOf(b) && jsonSpans(a, true).every((d) => b.includes(a.slice(d.start, d.end)));
      if (whitespace.verify!(req(a), req(b), makeCtx()) !== expected) wrong.push([a, b]);
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});
