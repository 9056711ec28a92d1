// Word lookup without making strings: an ASCII word walks a trie as it is read; any other is hashed
// (FNV-1a) into an open-addressing table, a hit compared with the text. Every lexicon word, phrase
// words included, gets an id; phrase continuations are keyed by (head, id) in a table of their own.
import type { Entry } from "./lexicon.ts";

export const HASH_SEED = 0x811c9dc5;
export const HASH_PRIME = 16777619;

/** Lowercase of each code unit below 0x2000 (where cased scripts live); the curly apostrophe
 * is folded into the straight one by the scan itself. */
export const LOWER = new Uint16Array(0x2000);
for (let c = 0; c < 0x2000; c++) {
  const lower = String.fromCharCode(c).toLowerCase();
  LOWER[c] = lower.length === 1 ? lower.charCodeAt(0) : c;
}

export const lowerCode = (c: number): number => (c < 0x2000 ? (LOWER[c] ?? c) : c === 0x2019 ? 0x27 : c);

export function hashOf(word: string): number {
  let h = HASH_SEED;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ lowerCode(word.charCodeAt(i)), HASH_PRIME);
  return h;
}

/** id -> word; id -> its top-level entry (undefined for words seen only inside phrases). */
export const WORDS: string[] = [];
export const WORD_ENTRY: Array<Entry | undefined> = [];
/** 1 for ids that continue some phrase: any other word skips the phrase maps' lookups. */
export let CONTINUES = new Uint8Array(0);
let hashes = new Int32Array(0);
let mask = 0;
let slots = new Int32Array(0);
/** Every word's code units end to end: word id -> offset and length in CHARS. */
let chars = new Uint16Array(0);
let offsets = new Int32Array(0);
let lengths = new Int32Array(0);

function idOf(word: string, ids: Map<string, number>): number {
  let id = ids.get(word);
  if (id === undefined) {
    id = WORDS.length;
    WORDS.push(word);
    WORD_ENTRY.push(undefined);
    ids.set(word, id);
  }
  return id;
}

/** Code of an ASCII letter (either case) or "_" as a trie symbol (1-27); 0 for any other code. */
export const ASCII_SYMBOL = new Uint8Array(0x80);
for (let c = 0x61; c <= 0x7a; c++) ASCII_SYMBOL[c] = ASCII_SYMBOL[c - 0x20] = c - 0x60;
ASCII_SYMBOL[0x5f] = 27;
export const TRIE_SYMBOLS = 28;

/** The words made of ASCII letters and "_" as a trie the scan walks while it reads a word, so the
 * word's id needs no hash probe and no comparison: next = `next[node * 28 + symbol]`, node 0 is
 * dead (its row is all 0, so it stays dead), the root is 1; `word[node]` is an id or -1. */
export interface WordTrie {
  next: Uint16Array | Uint32Array;
  word: Int32Array;
}
export const TRIE_ROOT = 1;

function buildTrie(): WordTrie {
  // Rows in one flat array sized for the worst case (a node per character), cut to size at the end.
  let units = 0;
  for (const w of WORDS) units += w.length;
  const rows = new Int32Array((units + 2) * TRIE_SYMBOLS);
  const word = new Int32Array(units + 2).fill(-1);
  let nodes = 2;
  for (let id = 0; id < WORDS.length; id++) {
    const w = WORDS[id] ?? "";
    let ascii = true;
    for (let i = 0; i < w.length && ascii; i++) ascii = (ASCII_SYMBOL[w.charCodeAt(i)] ?? 0) !== 0 && w.charCodeAt(i) >= 0x5f;
    if (!ascii) continue;
    let node = TRIE_ROOT;
    for (let i = 0; i < w.length; i++) {
      const at = node * TRIE_SYMBOLS + (ASCII_SYMBOL[w.charCodeAt(i)] ?? 0);
      if (rows[at] === 0) rows[at] = nodes++;
      node = rows[at] ?? 0;
    }
    word[node] = id;
  }
  const size = nodes * TRIE_SYMBOLS;
  const next = nodes > 0xffff ? new Uint32Array(size) : new Uint16Array(size);
  next.set(rows.subarray(0, size));
  return { next, word: word.slice(0, nodes) };
}

/** Assigns ids to every word of `lexicon` (and of its phrases), then builds the hash table and the trie. */
export function buildWordTable(lexicon: ReadonlyMap<string, Entry>): WordTrie {
  const ids = new Map<string, number>();
  const visit = (map: ReadonlyMap<string, Entry>, top: boolean): void => {
    for (const [word, entry] of map) {
      const id = idOf(word, ids);
      if (top) WORD_ENTRY[id] = entry;
      if (entry.next !== null) {
        visit(entry.next, false);
        entry.nextKey = heads++;
        for (const [w, e] of entry.next) continuing.push([entry.nextKey, idOf(w, ids), e]);
      }
    }
  };
  let heads = 0;
  const continuing: Array<[number, number, Entry]> = [];
  visit(lexicon, true);
  if (WORDS.length > 0xffff || heads > 0x7fff) throw new Error("analysis: phrase keys overflow");
  CONTINUES = new Uint8Array(WORDS.length);
  for (const [, id] of continuing) CONTINUES[id] = 1;
  buildPhraseTable(continuing);
  for (const word of WORDS) {
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      if (lowerCode(c) !== c) throw new Error(`analysis: lexicon word ${word} is not lowercase`);
    }
  }
  let size = 1;
  while (size < WORDS.length * 4) size <<= 1;
  mask = size - 1;
  slots = new Int32Array(size).fill(-1);
  hashes = new Int32Array(WORDS.length);
  lengths = new Int32Array(WORDS.length);
  offsets = new Int32Array(WORDS.length);
  let units = 0;
  for (const word of WORDS) units += word.length;
  chars = new Uint16Array(units);
  let at = 0;
  for (let id = 0; id < WORDS.length; id++) {
    const word = WORDS[id] ?? "";
    const h = hashOf(word);
    hashes[id] = h;
    lengths[id] = word.length;
    offsets[id] = at;
    for (let i = 0; i < word.length; i++) chars[at++] = word.charCodeAt(i);
    let i = h & mask;
    while (slots[i] !== -1) i = (i + 1) & mask;
    slots[i] = id;
  }
  return buildTrie();
}

/** Phrase continuations: (head's nextKey, next word's id) -> entry, open addressing. */
let phraseKeys = new Int32Array(0);
let phraseEntries: Entry[] = [];
let phraseShift = 32;
/** Fibonacci hashing: the top bits of key * 2^32/phi pick the slot. */
const PHRASE_HASH = 0x9e3779b1;

function buildPhraseTable(continuing: ReadonlyArray<readonly [number, number, Entry]>): void {
  let bits = 1;
  while (1 << bits < continuing.length * 4) bits++;
  phraseShift = 32 - bits;
  phraseKeys = new Int32Array(1 << bits).fill(-1);
  phraseEntries = new Array<Entry>(1 << bits);
  for (const [head, id, entry] of continuing) {
    const key = (head << 16) | id;
    let i = Math.imul(key, PHRASE_HASH) >>> phraseShift;
    while (phraseKeys[i] !== -1) i = (i + 1) & ((1 << bits) - 1);
    phraseKeys[i] = key;
    phraseEntries[i] = entry;
  }
}

/** The entry continuing the phrase whose head has `nextKey` with the word `id`, if any. */
export function phraseEntry(nextKey: number, id: number): Entry | undefined {
  const key = (nextKey << 16) | id;
  const m = phraseKeys.length - 1;
  for (let i = Math.imul(key, PHRASE_HASH) >>> phraseShift; ; i = (i + 1) & m) {
    const k = phraseKeys[i] ?? -1;
    if (k === key) return phraseEntries[i];
    if (k === -1) return undefined;
  }
}

/** Id of the word `text[start, end)` (compared case-insensitively), or -1. */
export function findWord(hash: number, text: string, start: number, end: number): number {
  const len = end - start;
  for (let i = hash & mask; ; i = (i + 1) & mask) {
    const id = slots[i] ?? -1;
    if (id < 0) return -1;
    if (hashes[id] === hash && lengths[id] === len && same(offsets[id] ?? 0, text, start, end)) return id;
  }
}

/** Whether `text[start, end)` reads the word at `at` in `chars` once lowercased (lowerCode, unit by unit). */
function same(at: number, text: string, start: number, end: number): boolean {
  for (let j = start; j < end; j++, at++) {
    const w = chars[at] ?? 0;
    const c = text.charCodeAt(j);
    // Lexicon words are lowercase: an equal code unit is equal once lowercased (checked at build).
    if (c !== w && (c >= 0x2000 ? (c === 0x2019 ? 0x27 : c) : (LOWER[c] ?? c)) !== w) return false;
  }
  return true;
}
