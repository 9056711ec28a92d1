// Word lookup without making strings: the scan hashes each word's lowercase code units as it reads
// them (FNV-1a) and probes this open-addressing table; only a hit is compared with the text. Every
// word of the lexicon, phrase words included, gets an id; phrase continuations are keyed by id.
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

/** Assigns ids to every word of `lexicon` (and of its phrases), then builds the hash table. */
export function buildWordTable(lexicon: ReadonlyMap<string, Entry>): void {
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
  hashes = Int32Array.from(WORDS, hashOf);
  WORDS.forEach((word, id) => {
    let i = (hashes[id] ?? 0) & mask;
    while (slots[i] !== -1) i = (i + 1) & mask;
    slots[i] = id;
  });
}

/** Phrase continuations: (head's nextKey, next word's id) -> entry, open addressing. */
let phraseKeys = new Int32Array(0);
let phraseEntries: Entry[] = [];
let phraseShift = 32;
const phraseSlot = (key: number): number => Math.imul(key, 0x9e3779b1) >>> phraseShift;

function buildPhraseTable(continuing: ReadonlyArray<readonly [number, number, Entry]>): void {
  let bits = 1;
  while (1 << bits < continuing.length * 4) bits++;
  phraseShift = 32 - bits;
  phraseKeys = new Int32Array(1 << bits).fill(-1);
  phraseEntries = new Array<Entry>(1 << bits);
  for (const [head, id, entry] of continuing) {
    const key = (head << 16) | id;
    let i = phraseSlot(key);
    while (phraseKeys[i] !== -1) i = (i + 1) & ((1 << bits) - 1);
    phraseKeys[i] = key;
    phraseEntries[i] = entry;
  }
}

/** The entry continuing the phrase whose head has `nextKey` with the word `id`, if any. */
export function phraseEntry(nextKey: number, id: number): Entry | undefined {
  const key = (nextKey << 16) | id;
  const m = phraseKeys.length - 1;
  for (let i = phraseSlot(key); ; i = (i + 1) & m) {
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
    if (hashes[id] !== hash) continue;
    const word = WORDS[id] ?? "";
    if (word.length === len && same(word, text, start)) return id;
  }
}

/** Whether `text` at `start` reads `word` once lowercased (lowerCode, char by char). */
function same(word: string, text: string, start: number): boolean {
  for (let i = 0; i < word.length; i++) {
    const w = word.charCodeAt(i);
    const c = text.charCodeAt(start + i);
    // Lexicon words are lowercase: an equal code unit is equal once lowercased (checked at build).
    if (c !== w && (c >= 0x2000 ? (c === 0x2019 ? 0x27 : c) : (LOWER[c] ?? c)) !== w) return false;
  }
  return true;
}
