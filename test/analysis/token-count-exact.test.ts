// gw's token counts and cuts (src/analysis/tokens.ts, counted pretoken by pretoken with a memo) are
// the tokenizer library's own, to the token and to the character, on text built to stress the
// pretokenizer: every script, whitespace runs, contractions, digits, emoji, special-token text.
import { describe, expect, test } from "bun:test";
import { asciiPretokenEnd } from "../../src/analysis/pretokens-ascii.ts";
import { countTextTokens, preloadTokenizer, truncateToTokens } from "../../src/analysis/tokens.ts";

preloadTokenizer();
const library = require("gpt-tokenizer") as typeof import("gpt-tokenizer");
const AS_TEXT = { disallowedSpecial: new Set<string>() };

const PARTS = [
  "the", " The", " colleague", "don't", " I'll", " THEY'RE", " O'Neil", "12345678", " 3.14159", "\n", "\n\n\n", "   ", "\t",
  " 日本語のテキスト", "中文句子。", " Привет", " ünïcödé", " 😀", "👍🏽", " <|endoftext|>", "<|im_start|>", "{\"a\": [1, 2]}",
  "    return x * 2; // comment", "ا لعربية", " עברית", " ελληνικά", " 한국어", "!!!", "...", "--", "https://example.com/a?b=c",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", " x", "\r\n", " \u00a0 ", "ﬁ", "e\u0301",
];

/** Deterministic pseudo-random texts of the parts above. */
function texts(count: number, parts: readonly string[] = PARTS): string[] {
  let seed = 12345;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = "";
    const n = 1 + Math.floor(next() * 40);
    for (let j = 0; j < n; j++) s += parts[Math.floor(next() * parts.length)];
    out.push(s);
  }
  return out;
}

describe("token counts equal the library's", () => {
  const cases = [...texts(400), ...texts(100, PARTS.filter((p) => /^[\x00-\x7f]*$/.test(p)))];

  test("counts, texts up to the exact-count limit", () => {
    const wrong = cases.filter((s) => countTextTokens(s) !== library.countTokens(s, AS_TEXT));
    expect(wrong).toEqual([]);
    // Twice: the second pass reads the memo.
    expect(cases.filter((s) => countTextTokens(s) !== library.countTokens(s, AS_TEXT))).toEqual([]);
  });

  test("cuts at max_tokens: cut exactly when the text has more tokens, to what the first N decode to", () => {
    const wrong: string[] = [];
    // The library's decoder keeps a cut character's bytes for its next call, so the reference text
    // is compared only where no cut can fall inside a character; the cut flag everywhere.
    for (const s of cases.slice(0, 200)) {
      const ascii = /^[\x00-\x7f]*$/.test(s);
      const tokens = library.encode(s, AS_TEXT);
      for (const limit of [1, 2, 5, 17, 40]) {
        const got = truncateToTokens(s, limit);
        const want = tokens.length <= limit ? s : library.decode(tokens.slice(0, limit));
        if (got.cut !== tokens.length > limit || (!got.cut && got.text !== s) || (ascii && got.text !== want)) wrong.push(`${limit}: ${JSON.stringify(s)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("the ASCII pretokenizer splits as o200k's regex does", () => {
  test("on 20,000 random ASCII strings: letters, cases, contractions, digits, spaces, newlines, controls", () => {
    const regex: unknown = Reflect.get(Reflect.get(Reflect.get(library, "default") ?? {}, "bytePairEncodingCoreProcessor") ?? {}, "tokenSplitRegex");
    if (!(regex instanceof RegExp)) throw new Error("the library no longer exposes its split regex; tokens.ts then counts without it");
    const alphabet = "aAbZ  \t\n\r\n'sStT'llLLvereRE0123456789.,;:!?()/-_\"'\x00\x0b\x0c\x1f\x7f ";
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const wrong: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      let s = "";
      for (let j = 1 + Math.floor(next() * 25); j > 0; j--) s += next() < 0.15 ? String.fromCharCode(Math.floor(next() * 128)) : alphabet[Math.floor(next() * alphabet.length)];
      const want = [...s.matchAll(regex)].map((m) => m[0]);
      const got: string[] = [];
      for (let i = 0; i < s.length; ) {
        const end = asciiPretokenEnd(s, i);
        if (end <= i) break;
        got.push(s.slice(i, end));
        i = end;
      }
      if (got.join("\u0001") !== want.join("\u0001")) wrong.push(JSON.stringify(s));
    }
    expect(wrong).toEqual([]);
  });
});
