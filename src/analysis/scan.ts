// One pass over a prompt window (docs/routing.md "Analysis"): each character read once (twice in a
// word the ASCII fast path hands back), each word looked up as it is read without making a string;
// no regex runs per word.
import { newEntities, takeLinks } from "./entities.ts";
import { CLASS, CLS_DIGIT, HINT_LANG, HINT_WEIGHT, SCRIPT_HINT, S_HANGUL, S_LATIN, S_THAI, wideScript } from "./language.ts";
import { hasPersonalIdentifier } from "./personal.ts";
import { mark } from "./scan-marks.ts";
import { newState, resetState, type ScanState, type Signals } from "./scan-state.ts";
import { applyEntry, asciiWord, numeric, word } from "./scan-words.ts";
import { SUBSTRING_FIRST, SUBSTRING_LISTS, WORD_TRIE } from "./vocabulary.ts";
import { ASCII_SYMBOL, HASH_PRIME, HASH_SEED, LOWER, TRIE_ROOT, TRIE_SYMBOLS } from "./word-table.ts";

export type { Signals } from "./scan-state.ts";

/** Identifiers need at least this many digits; below it the identifier regexes are not run. */
const ID_DIGITS = 7;

export function scan(text: string): Signals {
  const entities = newEntities();
  return run(newState(takeLinks(text, entities), entities));
}

let spare: ScanState | null = null;

/** scan() into one state kept between calls (no arrays to allocate): the result is valid until
 * the next call, for a caller that reads it at once (the analyzer). Its entities are its own. */
export function scanOnce(text: string): Signals {
  const entities = newEntities();
  const src = takeLinks(text, entities);
  return run(spare === null ? (spare = newState(src, entities)) : resetState(spare, src, entities));
}

const trie = WORD_TRIE.next;
const trieWord = WORD_TRIE.word;

function run(s: ScanState): Signals {
  const entities = s.entities;
  const src = s.src;
  const n = s.n;
  let latin = 0;
  let i = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x20) {
      i++;
      continue;
    }
    const first = c < 0x80 ? (ASCII_SYMBOL[c] ?? 0) : 0;
    if (first !== 0) {
      // The common token: ASCII letters ended by a space or by punctuation that joins nothing,
      // its id read off the trie as it goes; anything else (a digit, an accent, a joiner) is read
      // again by token() from its start.
      const start = i;
      let node = trie[TRIE_ROOT * TRIE_SYMBOLS + first] ?? 0;
      let next = -1;
      while (++i < n) {
        next = src.charCodeAt(i);
        const symbol = next < 0x80 ? (ASCII_SYMBOL[next] ?? 0) : 0;
        if (symbol === 0) break;
        node = trie[node * TRIE_SYMBOLS + symbol] ?? 0;
        next = -1;
      }
      if (next === -1 || next === 0x20 || (next < 0x80 && ASCII_END[next] === 1 && !(i + 1 < n && joins(src, next, i)))) {
        latin += i - start;
        asciiWord(s, start, i, trieWord[node] ?? -1, c, next);
      } else i = token(s, start);
      continue;
    }
    if (c < 0x2000) {
      const cls = CLASS[c] ?? 0;
      if (cls === 0) i = mark(s, c, i);
      else if (cls === S_THAI || cls === S_HANGUL) {
        s.scripts[cls] = (s.scripts[cls] ?? 0) + 1;
        if (SUBSTRING_FIRST[c] !== 0) substring(s, c, i);
        i++;
      } else i = token(s, i);
      continue;
    }
    const script = wideScript(c);
    if (script === 0) {
      i = mark(s, c, i);
      continue;
    }
    s.scripts[script] = (s.scripts[script] ?? 0) + 1;
    if (SUBSTRING_FIRST[c] !== 0) substring(s, c, i);
    s.sentenceStart = false;
    i++;
  }
  s.scripts[S_LATIN] = (s.scripts[S_LATIN] ?? 0) + latin;
  s.questionEnd = endsWithQuestion(src);
  if (entities.emails.length > 0 || (s.digits >= ID_DIGITS && hasPersonalIdentifier(src))) s.personal = true;
  return s;
}

/** Reads a word or number token from `start`, hashing its lowercase form; returns its end.
 * Joiners (' ’ - . /, and , : between digits) stay inside a token when a word character follows. */
function token(s: ScanState, start: number): number {
  const { src, n, scripts, langScores } = s;
  let i = start;
  let digits = 0;
  let letters = 0;
  let joined = false;
  let h = HASH_SEED;
  let ascii = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c < 0x80) {
      // The common case first: an ASCII letter or "_" (its lowercase code), a digit, a space.
      const lc = ASCII_WORD[c] ?? 0;
      if (lc !== 0) {
        ascii++;
        h = Math.imul(h ^ lc, HASH_PRIME);
        i++;
        continue;
      }
      if (c === 0x20) break;
    }
    const cls = c < 0x2000 ? (CLASS[c] ?? 0) : 0;
    if (cls === CLS_DIGIT) {
      digits++;
      h = Math.imul(h ^ c, HASH_PRIME);
      i++;
      continue;
    }
    if (cls !== 0 && cls !== S_THAI && cls !== S_HANGUL) {
      const lc = LOWER[c] ?? c;
      letters++;
      scripts[cls] = (scripts[cls] ?? 0) + 1;
      if (lc >= 0xc0) {
        const lang = HINT_LANG[lc] ?? -1;
        if (lang >= 0) langScores[lang] = (langScores[lang] ?? 0) + (HINT_WEIGHT[lc] ?? 0);
        const hint = SCRIPT_HINT[lc] ?? 0;
        if (hint !== 0) scripts[hint] = (scripts[hint] ?? 0) + 1;
      }
      h = Math.imul(h ^ lc, HASH_PRIME);
      i++;
      continue;
    }
    if (i > start && i + 1 < n && joins(src, c, i)) {
      joined = true;
      h = Math.imul(h ^ (c === 0x2019 ? 0x27 : c), HASH_PRIME);
      i++;
      continue;
    }
    break;
  }
  scripts[S_LATIN] = (scripts[S_LATIN] ?? 0) + ascii;
  letters += ascii;
  if (digits > 0) numeric(s, start, i, letters > 0 || joined, digits, h, letters > 0);
  else word(s, start, i, joined, h);
  return i;
}

/** Lowercase code of ASCII letters and "_" (class S_LATIN), 0 for every other ASCII code. */
const ASCII_WORD = new Uint8Array(0x80);
for (let c = 0; c < 0x80; c++) if (CLASS[c] === S_LATIN) ASCII_WORD[c] = LOWER[c] ?? c;
/** ASCII codes that end a letter run unless they join (not letters, not digits). */
const ASCII_END = new Uint8Array(0x80);
for (let c = 0; c < 0x80; c++) if ((CLASS[c] ?? 0) === 0) ASCII_END[c] = 1;

function joins(text: string, c: number, i: number): boolean {
  const next = text.charCodeAt(i + 1);
  const nextCls = next < 0x2000 ? (CLASS[next] ?? 0) : 0;
  if (nextCls === 0 || nextCls === S_THAI || nextCls === S_HANGUL) return false;
  if (c === 0x27 || c === 0x2019 || c === 0x2d || c === 0x2e || c === 0x2f) return true;
  if (c === 0x2c || c === 0x3a) return nextCls === CLS_DIGIT && CLASS[text.charCodeAt(i - 1)] === CLS_DIGIT;
  return false;
}

/** CJK, Thai and Korean cues: the longest key starting at `i`. */
function substring(s: ScanState, c: number, i: number): void {
  const keys = SUBSTRING_LISTS[(SUBSTRING_FIRST[c] ?? 0) - 1];
  if (keys === undefined) return;
  const src = s.src;
  for (let k = 0; k < keys.length; k++) {
    const candidate = keys[k];
    if (candidate === undefined) continue;
    const { key, entry } = candidate;
    const end = i + key.length;
    if (end > s.n) continue;
    // src.startsWith(key, i), unit by unit: keys are 1-6 units and the first is equal already.
    let j = 1;
    while (j < key.length && src.charCodeAt(i + j) === key.charCodeAt(j)) j++;
    if (j === key.length) {
      applyEntry(s, entry, i, end, s.wordIndex++);
      return;
    }
  }
}

function endsWithQuestion(text: string): boolean {
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) continue;
    return c === 0x3f || c === 0xff1f || c === 0x61f || c === 0x37e;
  }
  return false;
}
