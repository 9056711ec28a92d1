// The scan's fast paths give what its general paths give (docs/routing.md "Analysis"): the trie of ASCII
// words finds the hash table's ids, reference nouns are flagged, the reused state reads like a fresh one.
import { describe, expect, test } from "bun:test";
import { scan, scanOnce, type Signals } from "../../src/analysis/scan.ts";
import { F_PNOUN, F_REFERENCE, SUBSTRINGS, type Entry } from "../../src/analysis/lexicon.ts";
import { REFERENCE_NOUNS } from "../../src/analysis/personal.ts";
import { LEXICON, REFERENCES_MARKED, WORD_TRIE } from "../../src/analysis/vocabulary.ts";
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

describe("reference nouns", () => {
  test("exactly the personal nouns in REFERENCE_NOUNS carry F_REFERENCE, words and substrings alike", () => {
    expect(REFERENCES_MARKED).toBe(true);
    let marked = 0;
    const visit = (table: ReadonlyMap<string, Entry>): void => {
      for (const [key, e] of table) {
        const reference = (e.flags & F_PNOUN) !== 0 && REFERENCE_NOUNS.has(key);
        expect((e.flags & F_REFERENCE) !== 0).toBe(reference);
        if (reference) marked++;
        if (e.next !== null) visit(e.next);
      }
    };
    visit(LEXICON);
    visit(SUBSTRINGS);
    expect(marked).toBeGreaterThan(50);
  });

  test("a number after one makes the text personal in any case or script", () => {
    for (const text of ["where is order 558231", "Where is ORDER no. 558231?", "Mi pedido: PEDIDO 4471", "我的订单12345在哪里", "acct 4471 balance"]) {
      expect(scan(text).personal).toBe(true);
    }
    expect(scan("where is the 558231 order").personal).toBe(false);
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
