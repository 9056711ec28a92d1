// The scan's fast paths give what its general paths give (docs/routing.md "Analysis"): the trie of
// ASCII words finds the ids the hash table finds, and the analyzer's reused state reads like a fresh one.
import { describe, expect, test } from "bun:test";
import { scan, scanOnce, type Signals } from "../../src/analysis/scan.ts";
import { WORD_TRIE } from "../../src/analysis/vocabulary.ts";
import { ASCII_SYMBOL, TRIE_ROOT, TRIE_SYMBOLS, WORDS, findWord, hashOf } from "../../src/analysis/word-table.ts";
import evalSet from "../fixtures/analyzer-eval.json";

function trieId(word: string): number {
  let node = TRIE_ROOT;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    node = WORD_TRIE.next[node * TRIE_SYMBOLS + (c < 0x80 ? (ASCII_SYMBOL[c] ?? 0) : 0)] ?? 0;
  }
  return WORD_TRIE.word[node] ?? -1;
}

const plain = (s: Signals) => ({
  ...s,
  taskScores: [...s.taskScores], subScores: [...s.subScores], langScores: [...s.langScores], scripts: [...s.scripts],
  entities: structuredClone(s.entities),
});

describe("word lookup", () => {
  test("every ASCII lexicon word has the same id on the trie as in the hash table, in any case", () => {
    const ascii = WORDS.filter((w) => /^[a-z_]+$/.test(w));
    expect(ascii.length).toBeGreaterThan(1000);
    for (const w of ascii) {
      const id = findWord(hashOf(w), w, 0, w.length);
      expect(id).toBe(WORDS.indexOf(w));
      expect(trieId(w)).toBe(id);
      expect(trieId(w.toUpperCase())).toBe(id);
    }
  });

  test("a word outside the lexicon, or a prefix or extension of one, is not found", () => {
    for (const w of ["zzqa", "summaris", "summarisex", "the_", "colleague"]) {
      expect(trieId(w)).toBe(findWord(hashOf(w), w, 0, w.length));
    }
    expect(trieId("summaris")).toBe(-1);
  });
});

describe("the analyzer's reused scan state", () => {
  test("reads every eval prompt as a fresh scan does, whatever was scanned before", () => {
    const prompts = (evalSet as Array<{ prompt: string }>).map((c) => c.prompt);
    for (let i = 0; i < prompts.length; i++) {
      const text = prompts[i] ?? "";
      // The previous prompt leaves its state behind (quotes, pending phrases, counts).
      scanOnce(`${prompts[(i + 7) % prompts.length]} "open quote, my order`);
      expect(plain(scanOnce(text))).toEqual(plain(scan(text)));
    }
  });
});
