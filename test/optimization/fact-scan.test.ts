// The preserve gate's fact scan (src/optimization/gates.ts entitiesOf) held equal to a plain
// reference scanner (the one it replaced) on 200k random texts and every corpus message.
import { describe, expect, test } from "bun:test";
import { messageText } from "../../src/analysis/tokens.ts";
import { entitiesOf } from "../../src/optimization/gates.ts";
import { loadCorpus } from "../fixtures/optimization/corpus.ts";

const BREAK = new Uint8Array(128);
for (const c of " \t\n\r\f\v\"'`,;()[]{}<>|\\") BREAK[c.charCodeAt(0)] = 1;
for (const c of ".:=*?!-/#") BREAK[c.charCodeAt(0)] = 2;
const breaks = (c: number): boolean => (c < 128 ? BREAK[c] === 1 : c === 0xa0 || c === 0x2028 || c === 0x201c || c === 0x201d);
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;

/** Tokens with a digit, "@" or "://", trimmed of .:=*?!-/# at both ends; quoted strings on one
 * line (escapes skipped, at most 200 units inside, non-empty) with whitespace runs collapsed. */
function reference(text: string): string[] {
  const out = new Set<string>();
  let start = -1;
  let closedAt = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (!breaks(c)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      let tok = text.slice(start, i);
      if (/[0-9@]/.test(tok) || tok.includes("://")) {
        while (tok && BREAK[tok.charCodeAt(0)] === 2) tok = tok.slice(1);
        while (tok && BREAK[tok.charCodeAt(tok.length - 1)] === 2) tok = tok.slice(0, -1);
        if (tok) out.add(tok);
      }
    }
    start = -1;
    if ((c === 34 || c === 0x201c) && i !== closedAt) {
      const close = c === 34 ? 34 : 0x201d;
      closedAt = -1;
      for (let j = i + 1; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 92) j++;
        else if (d === 10 || d === 13) break;
        else if (d === close) {
          const inner = text.slice(i + 1, j);
          if (inner.length > 0 && inner.length <= 200) {
            let words = "";
            let space = false;
            for (let k = 0; k < inner.length; k++) {
              if (isSpace(inner.charCodeAt(k))) space = words.length > 0;
              else (words += (space ? " " : "") + inner[k]), (space = false);
            }
            if (words) out.add(`"${words}"`);
          }
          closedAt = j;
          break;
        }
      }
    }
  }
  return [...out];
}

function randomTexts(count: number): string[] {
  let seed = 3;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const alpha = ['"', '"', "\u201c", "\u201d", "\\", " ", " ", "  ", "\t", "\n", "\r", "\u00a0", "\u2028", "a", "b", "1", "2", "@", "://", ":", "/", ".", "-", ",", "x y", "{", "}"];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = "";
    for (let k = Math.floor(next() * 30); k > 0; k--) s += alpha[Math.floor(next() * alpha.length)];
    out.push(s);
  }
  return out;
}

const same = (text: string): boolean => entitiesOf(text).join("\u0001") === reference(text).join("\u0001");

describe("fact scan", () => {
  test("equal to the reference scanner, in order, on 200k random texts", () => {
    const differ = randomTexts(200_000).filter((t) => !same(t));
    expect(differ.slice(0, 5)).toEqual([]);
  });

  test("equal to the reference scanner on every corpus message, and on long and repeated facts", () => {
    const texts = loadCorpus().flatMap((c) => c.request.messages.map(messageText));
    texts.push(`"${"x".repeat(200)}" "${"y".repeat(201)}" a1 a1 "k" "k" "k"`, Array.from({ length: 500 }, (_, i) => `"id":"u${i % 37}"`).join(","));
    expect(texts.filter((t) => !same(t)).slice(0, 3)).toEqual([]);
  });
});
