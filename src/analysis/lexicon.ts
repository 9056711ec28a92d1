// The analyzer's one word table, built once at module load from the keyword data files: each
// lowercase word maps to its task cues, stopword languages and flags; phrases hang off their first
// word (`next`). Scripts without spaces (CJK, Thai, Korean) use a substring table instead.
import { KIND_INDEX, subIndex, type TaskKind } from "./kinds.ts";

export const F_NEG = 1;
export const F_LIVE_STRONG = 2;
export const F_LIVE_WEAK = 4;
export const F_POSS = 8; // "my", "mon", "mein"...
export const F_FIRST = 16; // "I", "me", "je", "ich"...
export const F_PNOUN = 32; // account, order, password...
export const F_MONTH = 64;
export const F_MONTH_AMBIG = 128; // "may", "march": a month only next to a number
export const F_DATEWORD = 256; // weekdays, today, tomorrow...
export const F_CONSTRAINT = 512;
export const F_STEP = 1024;
export const F_PERSONAL = 2048; // a phrase personal by itself ("my name is", "I live in")
export const F_NOT_NAME = 4096; // capitalised but never a name ("OK", "Please")
export const F_REFERENCE = 8192; // a personal noun a number may follow ("order 558231"), set by markReferences

/** Latin-script languages told apart by stopwords; bit i of `langs` is LATIN_LANGS[i]. */
export const LATIN_LANGS = ["en", "fr", "de", "es", "it", "pt", "nl"] as const;
export type LatinLang = (typeof LATIN_LANGS)[number];

export interface Cue {
  kind: number;
  weight: number;
  /** Index in SUB_NAMES, or -1. */
  sub: number;
}

export interface Entry {
  cues: Cue[] | null;
  /** Stopword languages (bitmask over LATIN_LANGS). */
  langs: number;
  /** 1 / number of languages in `langs`: a word shared by three languages is weaker evidence. */
  langShare: number;
  flags: number;
  next: Map<string, Entry> | null;
  /** With `next`: this head's key in the phrase table (word-table.ts phraseEntry), else -1. */
  nextKey: number;
}

/** [kind, weight, subtype or null, "phrase, phrase, ..."] */
export type CueSpec = readonly [TaskKind, number, string | null, string];

export const LEXICON = new Map<string, Entry>();
export const SUBSTRINGS = new Map<string, Entry>();

const blank = (): Entry => ({ cues: null, langs: 0, langShare: 0, flags: 0, next: null, nextKey: -1 });

/** The entry for a word or a space-separated phrase, created on first use. */
function node(table: Map<string, Entry>, phrase: string): Entry {
  const words = table === SUBSTRINGS ? [phrase] : phrase.split(" ");
  let map = table;
  let entry: Entry | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    entry = map.get(word);
    if (!entry) {
      entry = blank();
      map.set(word, entry);
    }
    if (i < words.length - 1) map = entry.next ??= new Map();
  }
  if (!entry) throw new Error(`analysis: empty phrase`);
  return entry;
}

/** Keys are lowercase with straight apostrophes; the scan folds curly ones the same way. */
const normalize = (phrase: string): string => phrase.trim().toLowerCase().replaceAll("\u2019", "'");

const split = (list: string): string[] => list.split(",").map((s) => s.trim()).filter((s) => s.length > 0);

export function addCues(specs: readonly CueSpec[], lang?: LatinLang, substring = false): void {
  const table = substring ? SUBSTRINGS : LEXICON;
  for (const [kind, weight, subtype, list] of specs) {
    const cue: Cue = { kind: KIND_INDEX.get(kind) ?? 0, weight, sub: subtype ? subIndex(kind, subtype) : -1 };
    for (const phrase of split(list)) {
      const key = normalize(phrase);
      const e = node(table, key);
      // The same word listed for one kind in two languages ("compare", "code") counts once.
      const same = e.cues?.findIndex((c) => c.kind === cue.kind) ?? -1;
      if (same < 0) (e.cues ??= []).push(cue);
      else if (e.cues && (e.cues[same]?.weight ?? 0) < cue.weight) e.cues[same] = cue;
      if (lang && !substring && !key.includes(" ")) addLangBit(e, lang, key);
    }
  }
}

/** One-letter words ("a", "e", "y") are also variables and list markers: half the evidence. */
function addLangBit(e: Entry, lang: LatinLang, word: string): void {
  e.langs |= 1 << LATIN_LANGS.indexOf(lang);
  let n = 0;
  for (let m = e.langs; m; m &= m - 1) n++;
  e.langShare = (word.length === 1 ? 0.5 : 1) / n;
}

export function addFlags(flag: number, list: string, substring = false): void {
  for (const phrase of split(list)) node(substring ? SUBSTRINGS : LEXICON, normalize(phrase)).flags |= flag;
}

export function addStopwords(lang: LatinLang, list: string): void {
  for (const word of split(list)) {
    const key = normalize(word);
    const e = node(LEXICON, key);
    addLangBit(e, lang, key);
    e.flags |= F_NOT_NAME;
  }
}

/** Task words of a language are weak evidence for it ("Solve 2x + 3 = 11" is English), unless
 * another language claims the word too. */
export function addLanguageHint(specs: readonly CueSpec[], lang: LatinLang, share: number): void {
  for (const [, , , list] of specs) {
    for (const phrase of split(list)) {
      const e = find(normalize(phrase));
      if (e && e.langs === 0) {
        e.langs = 1 << LATIN_LANGS.indexOf(lang);
        e.langShare = share;
      }
    }
  }
}

function find(phrase: string): Entry | undefined {
  let map: Map<string, Entry> | null = LEXICON;
  let entry: Entry | undefined;
  for (const word of phrase.split(" ")) {
    entry = map?.get(word);
    if (!entry) return undefined;
    map = entry.next;
  }
  return entry;
}

/** For each code unit, 1 + the index in SUBSTRING_LISTS of the keys starting with it, or 0: the
 * scan tests a CJK character with one array read and finds its keys with a second. */
export const SUBSTRING_FIRST = new Uint16Array(65536);
/** Keys by first code unit, longest first. */
export const SUBSTRING_LISTS: Array<Array<{ key: string; entry: Entry }>> = [];

export function indexSubstrings(): void {
  SUBSTRING_LISTS.length = 0;
  SUBSTRING_FIRST.fill(0);
  for (const [key, entry] of SUBSTRINGS) {
    const c = key.charCodeAt(0);
    if (SUBSTRING_FIRST[c] === 0) SUBSTRING_FIRST[c] = SUBSTRING_LISTS.push([]);
    const list = SUBSTRING_LISTS[(SUBSTRING_FIRST[c] ?? 1) - 1] ?? [];
    list.push({ key, entry });
    list.sort((a, b) => b.key.length - a.key.length);
  }
}

/** Sets F_REFERENCE on the personal nouns (F_PNOUN) whose own word is in `nouns`, so the scan reads
 * a flag instead of lowercasing the word it found: the word it found reads as the entry's key once
 * lowercased, bar a curly apostrophe, a final sigma or a dotted capital I, which no such noun holds
 * (checked: else nothing is marked and `false` says to look the word up as before). */
export function markReferences(nouns: ReadonlySet<string>): boolean {
  for (const noun of nouns) if (/['\u2019\u03a3\u03c3\u03c2\u0130\u0307]/.test(noun)) return false;
  const visit = (table: ReadonlyMap<string, Entry>): void => {
    for (const [key, entry] of table) {
      if ((entry.flags & F_PNOUN) !== 0 && nouns.has(key)) entry.flags |= F_REFERENCE;
      if (entry.next !== null) visit(entry.next);
    }
  };
  visit(LEXICON);
  visit(SUBSTRINGS);
  return true;
}
