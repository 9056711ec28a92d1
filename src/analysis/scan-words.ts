// Word and number tokens of the scan: lexicon cues and flags, phrases, names, dates, numbers, ids.
import { MAX_PER_LIST, T_DATE, T_ID, T_MATH_VAR, T_NUMBER, isSmallNumber, numericKind, pushUnique } from "./entities.ts";
import {
  F_CONSTRAINT, F_DATEWORD, F_FIRST, F_LIVE_STRONG, F_LIVE_WEAK, F_MONTH, F_MONTH_AMBIG, F_NEG, F_NOT_NAME,
  F_PERSONAL, F_PNOUN, F_POSS, F_REFERENCE, F_STEP, type Entry,
} from "./lexicon.ts";
import {
  CLAUSE_OPENER, FIRST_PERSON_REACH, OWNER_AFTER_PREP_REACH, OWNER_PLAIN_GAP, OWNER_AFTER_REACH, OWNER_PREPOSITION, POSSESSIVE_REACH,
  REFERENCE_BRIDGE, REFERENCE_GAP, REFERENCE_NOUNS,
} from "./personal.ts";
import { MIDDLE_WEIGHT, zoneWeight, type ScanState } from "./scan-state.ts";
import { CONTINUES, REFERENCES_MARKED, WORD_ENTRY, findWord, phraseEntry } from "./vocabulary.ts";
import { HASH_PRIME, HASH_SEED, lowerCode } from "./word-table.ts";

/** Flags applyEntry acts on (F_NOT_NAME and F_MONTH_AMBIG are read elsewhere): most stopwords have none. */
const SCAN_FLAGS = ~(F_NOT_NAME | F_MONTH_AMBIG);
const NOT_NAME_FLAGS = F_NEG | F_POSS | F_FIRST | F_NOT_NAME | F_MONTH | F_DATEWORD;
/** Quoted text is mostly material ("Traduci: 'Please keep...'"); it says little about the asker's language. */
const QUOTED_LANGUAGE = 0.2;
/** Single letters that read as math variables next to an operator. */
const VARS = new Set([..."xyznabk"].map((c) => c.charCodeAt(0)));
/** VARS.has(lowerCode(c)) for every code unit, one read instead of a Set lookup. */
const IS_VAR = new Uint8Array(0x10000);
// Above 0x2000 lowerCode() gives the code itself or "'": never a variable.
for (let c = 0; c < 0x2000; c++) if (VARS.has(lowerCode(c))) IS_VAR[c] = 1;
/** Function names that are math notation when an argument list follows: "sin(x)", "f(x)". */
const MATH_FUNCTIONS = new Set(["sin", "cos", "tan", "ln", "log", "exp", "sqrt", "f", "g", "lim", "det"]);

const lowerSlice = (s: ScanState, start: number, end: number): string => s.src.slice(start, end).toLowerCase();

/** Applies a lexicon entry (a word, a phrase's last word, or a CJK substring) found at [start, end). */
export function applyEntry(s: ScanState, e: Entry, start: number, end: number, idx: number): void {
  const langs = e.langs;
  const cues = e.cues;
  if (langs !== 0 || cues !== null) {
    // zoneWeight() and cueWeight() written out: most words get here.
    const m = start >= s.headEnd && start < s.tailStart ? MIDDLE_WEIGHT : 1;
    const quoted = s.quoteOpen >= 0;
    if (langs !== 0) {
      const share = e.langShare * (quoted ? m * QUOTED_LANGUAGE : m);
      const scores = s.langScores;
      if ((langs & (langs - 1)) === 0) {
        // One language (most stopwords): its index is the bit's.
        const b = 31 - Math.clz32(langs);
        scores[b] = (scores[b] ?? 0) + share;
      } else for (let b = 0, bits = langs; bits !== 0; b++, bits >>= 1) if (bits & 1) scores[b] = (scores[b] ?? 0) + share;
    }
    if (cues !== null) {
      const w = (quoted ? m * 0.5 : m) * (s.sentenceStart ? 1.5 : 1);
      const tasks = s.taskScores;
      const subs = s.subScores;
      for (let i = 0; i < cues.length; i++) {
        const cue = cues[i];
        if (cue === undefined) continue;
        tasks[cue.kind] = (tasks[cue.kind] ?? 0) + cue.weight * w;
        if (cue.sub >= 0) subs[cue.sub] = (subs[cue.sub] ?? 0) + (cue.weight || 1) * w;
      }
    }
  }
  const f = e.flags;
  if ((f & SCAN_FLAGS) !== 0) applyFlags(s, f, start, end, idx);
}

function applyFlags(s: ScanState, f: number, start: number, end: number, idx: number): void {
  // "12. Mai" is a date, not Italian "mai" (never).
  const dated = (f & F_MONTH) !== 0 && month(s, start, end, (f & F_MONTH_AMBIG) !== 0);
  if (f & F_NEG && !dated) pushUnique(s.entities.negations, lowerSlice(s, start, end).replace("\u2019", "'"));
  if (f & (F_LIVE_STRONG | F_LIVE_WEAK)) s.live += (f & F_LIVE_STRONG ? 2 : 1) * zoneWeight(s, start);
  if (f & F_POSS) s.lastPoss = idx;
  if (f & F_FIRST) s.lastFirst = idx;
  if (f & (F_POSS | F_FIRST) && ownerAfterNoun(s, start, idx)) s.personal = true;
  if (f & F_PNOUN && (idx - s.lastPoss <= POSSESSIVE_REACH || idx - s.lastFirst <= FIRST_PERSON_REACH)) s.personal = true;
  if (f & F_PNOUN) {
    s.lastPNoun = idx;
    s.lastPNounEnd = end;
    if (REFERENCES_MARKED ? (f & F_REFERENCE) !== 0 : REFERENCE_NOUNS.has(lowerSlice(s, start, end))) s.lastRefEnd = end;
  }
  if (f & F_PERSONAL) s.personal = true;
  if (f & F_CONSTRAINT) s.constraints++;
  if (f & F_STEP) s.steps++;
  if (f & F_DATEWORD) pushUnique(s.entities.dates, lowerSlice(s, start, end));
}

/** The owner named after the noun: "the subscription I have", "the orders placed by me". */
function ownerAfterNoun(s: ScanState, start: number, idx: number): boolean {
  const gap = idx - s.lastPNoun;
  // Quoted text is material (a pasted review's "Best purchase I've made"), not the asker's own record.
  if (gap <= 0 || gap > OWNER_AFTER_PREP_REACH || s.quoteOpen >= 0) return false;
  const before = s.src.slice(Math.max(0, start - 16), start);
  if (OWNER_PREPOSITION.test(before)) return true;
  return gap <= OWNER_AFTER_REACH && s.lastPNounEnd <= start && OWNER_PLAIN_GAP.test(s.src.slice(s.lastPNounEnd, start)) && !CLAUSE_OPENER.test(before);
}

/** An account-like noun followed by its number: "acct 4471", "order no. 558231", "invoice #20931". */
function referenceNumber(s: ScanState, start: number, digits: number): boolean {
  return digits >= 3 && s.lastRefEnd >= 0 && start - s.lastRefEnd <= REFERENCE_GAP && REFERENCE_BRIDGE.test(s.src.slice(s.lastRefEnd, start));
}

function pend(s: ScanState, nextKey: number): void {
  if (s.pend0 < 0) s.pend0 = nextKey;
  else if (s.pend1 < 0) s.pend1 = nextKey;
}

/** One word (no digits) at [start, end) with the hash of its lowercase form; `split` says it
 * holds joiners worth splitting on when the whole is not in the lexicon. */
export function word(s: ScanState, start: number, end: number, split: boolean, hash: number): void {
  const id = findWord(hash, s.src, start, end);
  let e: Entry | undefined;
  if (id >= 0) {
    e = WORD_ENTRY[id];
    lookup(s, id, e, start, end);
  } else if (split) splitWord(s, start, end);
  else outside(s);
  // Reads past the end return NaN and slow every later read at that site: bounds first.
  wordEnd(s, e, start, end, s.src.charCodeAt(start), end < s.n ? s.src.charCodeAt(end) : -1);
}

/** word() for the scan's common token, ASCII letters without joiners: `first` and `next` are
 * the code units at `start` and at `end` (-1 past the text). */
export function asciiWord(s: ScanState, start: number, end: number, id: number, first: number, next: number): void {
  let e: Entry | undefined;
  if (id >= 0) {
    e = WORD_ENTRY[id];
    lookup(s, id, e, start, end);
  } else outside(s);
  wordEnd(s, e, start, end, first, next);
}

/** lookup() for a word outside the lexicon: its index and the end of pending phrases. */
function outside(s: ScanState): void {
  s.wordIndex++;
  if (s.sentenceStart) s.lastPNoun = -99;
  s.pend0 = -1;
  s.pend1 = -1;
}

/** What follows any word: dates and names it ends or extends, math notation, the sentence under way. */
function wordEnd(s: ScanState, e: Entry | undefined, start: number, end: number, first: number, next: number): void {
  if (e === undefined || (e.flags & F_MONTH) === 0) s.dateEnd = -9;
  // name()'s own first test, without the call for the common lowercase word.
  if (first === lowerCode(first) || s.sentenceStart) s.nameEnd = -9;
  else name(s, e, start, end);
  if (next === 0x28 && end - start <= 4 && MATH_FUNCTIONS.has(lowerSlice(s, start, end))) s.mathMarks++;
  if (start - s.lastNumEnd > 4) s.lastNumEnd = -9; // "3rd of March" keeps its number across "of"
  s.mathPrev = end - start === 1 && IS_VAR[first] === 1;
  s.sentenceStart = false;
  s.lineStart = false;
  s.words++;
}

function lookup(s: ScanState, id: number, e: Entry | undefined, start: number, end: number): void {
  const idx = s.wordIndex++;
  // An owner after a noun counts only within its sentence ("What is an order? Tell me.").
  if (s.sentenceStart) s.lastPNoun = -99;
  const p0 = s.pend0;
  // pend fills pend0 first, so no pend0 means no pend1 either.
  if (p0 >= 0) {
    const p1 = s.pend1;
    s.pend0 = -1;
    s.pend1 = -1;
    if (id >= 0 && CONTINUES[id] === 1) {
      const pe = phraseEntry(p0, id);
      if (pe !== undefined) phrase(s, pe, start, end, idx);
      if (p1 >= 0) {
        const pe1 = phraseEntry(p1, id);
        if (pe1 !== undefined) phrase(s, pe1, start, end, idx);
      }
    }
  }
  if (e === undefined) return;
  applyEntry(s, e, start, end, idx);
  const key = e.nextKey;
  if (key >= 0) {
    if (s.pend0 < 0) s.pend0 = key;
    else if (s.pend1 < 0) s.pend1 = key;
  }
}

function phrase(s: ScanState, pe: Entry, start: number, end: number, idx: number): void {
  applyEntry(s, pe, start, end, idx);
  if (pe.nextKey >= 0) pend(s, pe.nextKey);
}

/** "l'article", "step-by-step", "and/or": look the parts up one by one (an elided article keeps its apostrophe). */
function splitWord(s: ScanState, start: number, end: number): void {
  const src = s.src;
  let from = start;
  let h = HASH_SEED;
  for (let i = start; i <= end; i++) {
    const c = i < end ? lowerCode(src.charCodeAt(i)) : 0;
    const apostrophe = c === 0x27;
    if (i < end && !apostrophe && c !== 0x2d && c !== 0x2e && c !== 0x2f) {
      h = Math.imul(h ^ c, HASH_PRIME);
      continue;
    }
    if (apostrophe) h = Math.imul(h ^ c, HASH_PRIME);
    const to = apostrophe ? i + 1 : i;
    if (to > from) {
      const id = findWord(h, src, from, to);
      lookup(s, id, id >= 0 ? WORD_ENTRY[id] : undefined, from, to);
    }
    from = i + 1;
    h = HASH_SEED;
  }
}

/** Capitalised words not at a sentence start are names; adjacent ones join ("New York"). */
function name(s: ScanState, e: Entry | undefined, start: number, end: number): void {
  const first = s.src.charCodeAt(start);
  const upper = first !== lowerCode(first);
  if (!upper || s.sentenceStart || (e !== undefined && (e.flags & NOT_NAME_FLAGS) !== 0)) {
    s.nameEnd = -9;
    return;
  }
  const names = s.entities.names;
  if (s.nameIdx >= 0 && start - s.nameEnd === 1 && s.src.charCodeAt(s.nameEnd) === 0x20) {
    names[s.nameIdx] = s.src.slice(s.nameStart, end);
  } else if (names.length < MAX_PER_LIST) {
    s.nameStart = start;
    s.nameIdx = names.length;
    names.push(s.src.slice(start, end));
  } else s.nameIdx = -1;
  s.nameEnd = end;
}

const DAY_GAPS = new Set([" ", ". ", " of ", " de ", " du ", "-", " the "]);
const dayGap = (s: ScanState, start: number): boolean =>
  start - s.lastNumEnd <= 5 && DAY_GAPS.has(lowerSlice(s, s.lastNumEnd, start));

/** A month word: joins a day number before it ("5 May") or after it ("May 5, 2024"). Returns
 * whether a day number came before it. */
function month(s: ScanState, start: number, end: number, ambiguous: boolean): boolean {
  const dates = s.entities.dates;
  const dayBefore = s.lastNumEnd >= 0 && dayGap(s, start) && isSmallNumber(lowerSlice(s, s.lastNumStart, s.lastNumEnd));
  if (dayBefore) {
    if (s.lastNumPushed) s.entities.numbers.pop();
    s.dateStart = s.lastNumStart;
  } else if (ambiguous) {
    s.dateStart = start;
    s.dateEnd = end;
    s.dateIdx = -1;
    return false;
  } else s.dateStart = start;
  s.dateEnd = end;
  s.dateIdx = dates.length < MAX_PER_LIST ? dates.push(lowerSlice(s, s.dateStart, end)) - 1 : -1;
  return dayBefore;
}

const CURRENCY = new Set([0x24, 0x20ac, 0xa3, 0xa5, 0x20b9]);

/** A token with digits: number, date, id or a math variable ("2x"); months pick up their day and year. */
export function numeric(s: ScanState, start: number, end: number, mixed: boolean, digits: number, hash: number, letters: boolean): void {
  const { src, entities } = s;
  const tok = letters ? lowerSlice(s, start, end) : src.slice(start, end);
  s.digits += digits;
  s.pend0 = s.pend1 = -1;
  if (referenceNumber(s, start, digits)) s.personal = true;
  if (letters) {
    const id = findWord(hash, src, start, end);
    const e = id >= 0 ? WORD_ENTRY[id] : undefined;
    if (e !== undefined) applyEntry(s, e, start, end, s.wordIndex++);
  }
  const next = end < s.n ? src.charCodeAt(end) : -1;
  const wasLineStart = s.lineStart;
  s.lineStart = false;
  s.sentenceStart = false;
  s.lastNumEnd = -9;
  if (wasLineStart && digits <= 2 && !mixed && (next === 0x2e || next === 0x29)) {
    s.listItems++;
    return;
  }
  if (s.dateEnd >= 0 && start - s.dateEnd <= 3 && isSmallNumber(tok)) {
    const value = lowerSlice(s, s.dateStart, end);
    if (s.dateIdx >= 0) entities.dates[s.dateIdx] = value;
    else if (entities.dates.length < MAX_PER_LIST) s.dateIdx = entities.dates.push(value) - 1;
    s.dateEnd = end;
    return;
  }
  s.dateEnd = -9;
  // Plain digit runs are the common case: no pattern to test.
  const kind = mixed ? numericKind(tok) : digits >= 7 ? T_ID : T_NUMBER;
  s.mathPrev = kind === T_NUMBER || kind === T_MATH_VAR;
  if (kind === T_NUMBER) {
    const prev = start > 0 ? src.charCodeAt(start - 1) : -1;
    let value = tok;
    if (next === 0x25) {
      value = `${tok}%`;
      const after = end + 5 < s.n ? src.charCodeAt(end + 5) : -1;
      if (src.startsWith(" of ", end + 1) && ((after >= 0x30 && after <= 0x39) || after === 0x24)) s.mathMarks++; // "17% of 2,340"
    }
    if (CURRENCY.has(prev)) value = String.fromCharCode(prev) + value;
    if (prev === 0x23) {
      pushUnique(entities.ids, `#${tok}`);
      return;
    }
    const before = entities.numbers.length;
    pushUnique(entities.numbers, value);
    s.lastNumPushed = entities.numbers.length > before;
    s.lastNumStart = start;
    s.lastNumEnd = end;
  } else if (kind === T_DATE) pushUnique(entities.dates, tok);
  else if (kind === T_ID) pushUnique(entities.ids, letters ? src.slice(start, end) : tok);
}
