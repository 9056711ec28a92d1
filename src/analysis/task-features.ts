// Features of a prompt for the task classifier (docs/routing.md "Task detection"): hashed word
// unigrams and bigrams, word prefixes, character n-grams of scripts written without spaces, and the
// scan's structure and cue scores as dense values. One pass over a bounded window; no strings made.
import type { ChatMessage } from "../canonical/chat.ts";
import { KINDS } from "./kinds.ts";
import { CLASS, CLS_DIGIT, S_HANGUL, S_THAI, wideScript } from "./language.ts";
import type { Signals } from "./scan.ts";
import { messageText } from "./tokens.ts";
import { LOWER } from "./word-table.ts";

/** The instruction sits at the start or the end of a message; the middle is pasted material. The
 * analyzer reads this window of the last user message (its head and tail). */
export const WINDOW_HEAD = 1500;
export const WINDOW_TAIL = 500;

export function windowText(text: string): string {
  return text.length <= WINDOW_HEAD + WINDOW_TAIL ? text : `${text.slice(0, WINDOW_HEAD)}\n${text.slice(-WINDOW_TAIL)}`;
}

/** Hashed feature ids have this many bits; the model keeps only the ids it learned weights for. */
export const ID_BITS = 24;
const ID_MASK = (1 << ID_BITS) - 1;
/** Kinds the text decides (agent and vision follow from the request's tools and images). */
export const TEXT_KINDS = KINDS.slice(0, 10);
export const CLASSES = TEXT_KINDS.length;
/** Dense features: a bias, the cue score and the rules' pick per kind, and the structure. */
export const DENSE = 1 + 2 * CLASSES + 23;

/** What a prompt's features are made of; the shipped model says which it was trained with. */
/** prefixes: word stems; edges: in a long text, words away from both ends (pasted material) weigh
 * less; context: a little of the earlier turns. */
/** affixes: a word's first four and last three letters (the morphology of pl, cs, uk, tr, ar, he...). */
export interface FeatureOptions { prefixes: boolean; edges: boolean; context: boolean; affixes: boolean }

export interface FeatureBuffer { ids: Int32Array; vals: Float32Array; n: number; dense: Float64Array; lines: number }

/** Enough for a 2,000-character window (at most three features a character) and some context. */
export const newFeatureBuffer = (capacity = 8192): FeatureBuffer =>
  ({ ids: new Int32Array(capacity), vals: new Float32Array(capacity), n: 0, dense: new Float64Array(DENSE), lines: 0 });

const PRIME = 16777619;
const WORD = 0x1000193, BIGRAM = 0x2a5f1c3, PREFIX = 0x3c6ef35, CHAR1 = 0x4b1d2f7, CHAR2 = 0x5e3779b, CHAR3 = 0x6f4a7c1;
const FIRST = 0x3d1f9e5, PUNCT = 0x7a1b2c3, CONTEXT = 0x9c3f5a7, HEAD4 = 0x1b873593, TAIL3 = 0x68e31da4;
const START = 0x2545f491;
/** A word's prefix of this many letters stands for its stem ("summar", "tradu", "zusam"). */
const PREFIX_LEN = 5;
/** In a text longer than twice this, words farther than this from both ends weigh MIDDLE. */
const EDGE_ZONE = 250;
const MIDDLE = 0.25;
/** A text longer than READ_HEAD + READ_TAIL is read at its first READ_HEAD and last READ_TAIL characters. */
export const READ_HEAD = 400;
export const READ_TAIL = 300;

const mix = (a: number, b: number): number => Math.imul((a ^ (b >>> 15) ^ (b << 7)) >>> 0, PRIME) ^ b;

/** Sum of the squared values pushed since textFeatures() began (it normalises by its root). */
let energy = 0;

function push(buf: FeatureBuffer, h: number, v: number): void {
  if (buf.n >= buf.ids.length) return;
  energy += v * v;
  buf.ids[buf.n] = (h ^ (h >>> ID_BITS)) & ID_MASK;
  buf.vals[buf.n++] = v;
}

/** Kind of a code unit: 1 a word letter or digit, 2 a letter of a script without spaces, 0 other. */
function unitKind(c: number): number {
  return c < 0x2000 ? (UNIT[c] ?? 0) : wideScript(c) === 0 ? 0 : 2;
}
const UNIT = new Uint8Array(0x2000);
for (let c = 0; c < 0x2000; c++) {
  const cls = CLASS[c] ?? 0;
  UNIT[c] = cls === 0 ? 0 : cls === S_THAI || cls === S_HANGUL ? 2 : 1;
}
// Scripts the scan does not bucket still make features: Armenian, Indic (Bengali to Sinhala), Georgian
// and Ethiopic words; Lao, Myanmar and Khmer, written without spaces, as character n-grams.
for (const [from, to, kind] of [[0x531, 0x58f, 1], [0x980, 0xdff, 1], [0x10a0, 0x10ff, 1], [0x1200, 0x137f, 1], [0xe80, 0xeff, 2], [0x1000, 0x109f, 2], [0x1780, 0x17ff, 2]] as const) {
  for (let c = from; c <= to; c++) UNIT[c] = kind;
}

/** Punctuation that tells a kind apart (code, lists, questions, quotes, formulas); other marks are skipped. */
const MARKS = new Uint8Array(0x80);
for (const ch of "?!:;{}()[]<>=+-*/^`\"#$%|&@~\\_") MARKS[ch.charCodeAt(0)] = 1;
const isMark = (c: number): boolean => (c < 0x80 ? MARKS[c] === 1 : c === 0xff1f || c === 0x61f || c === 0x201c || c === 0xab || c === 0x300c);

/**
 * Adds the features of `text` from `begin` to `end` to `buf`, scaled to length `weight`;
 * `context` marks text of the earlier turns (hashed apart from the last user turn's).
 */
export function textFeatures(buf: FeatureBuffer, text: string, begin: number, end: number, opts: FeatureOptions, weight = 1, context = false): void {
  const from = buf.n;
  const n = end;
  const salt = context ? CONTEXT : 0;
  const edgeText = opts.edges && !context && n - begin > 2 * EDGE_ZONE;
  const middleFrom = begin + EDGE_ZONE, middleTo = n - EDGE_ZONE;
  // Only the ends of a long text are read: the instruction sits there, the middle is material.
  const skipFrom = n - begin > READ_HEAD + READ_TAIL ? begin + READ_HEAD : n;
  const skipTo = n - READ_TAIL;
  energy = 0;
  let prev = START;
  let i = begin;
  while (i < n) {
    if (i >= skipFrom && i < skipTo) {
      i = skipTo;
      prev = START;
    }
    const c = text.charCodeAt(i);
    const kind = unitKind(c);
    const w = edgeText && i >= middleFrom && i < middleTo ? MIDDLE : 1;
    if (kind === 1) {
      let h = WORD ^ salt;
      let prefix = 0, head = 0;
      let len = 0;
      let l1 = 0, l2 = 0, l3 = 0;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0x2000 || UNIT[d] !== 1) break;
        const lo = CLASS[d] === CLS_DIGIT ? 0x30 : (LOWER[d] ?? d);
        h = Math.imul(h ^ lo, PRIME);
        l3 = l2;
        l2 = l1;
        l1 = lo;
        if (++len === PREFIX_LEN) prefix = h;
        else if (len === 4) head = h;
        i++;
      }
      if (opts.affixes && len >= 5 && !context) {
        push(buf, head ^ HEAD4, w);
        push(buf, Math.imul(Math.imul(Math.imul(TAIL3 ^ l3, PRIME) ^ l2, PRIME) ^ l1, PRIME), w);
      }
      push(buf, h, w);
      if (!context) push(buf, mix(prev, h) ^ BIGRAM, w);
      if (prev === START && !context) push(buf, h ^ FIRST, w); // a line's first word: often the verb of the instruction
      if (opts.prefixes && len > PREFIX_LEN + 1) push(buf, prefix ^ PREFIX ^ salt, w);
      prev = h;
      continue;
    }
    if (kind === 2) {
      // Character unigrams, bigrams and trigrams of the run.
      let p1 = 0, p2 = 0;
      let k = 0;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (unitKind(d) !== 2) break;
        const h1 = Math.imul(CHAR1 ^ salt ^ d, PRIME);
        push(buf, h1, w);
        if (k >= 1) push(buf, Math.imul(CHAR2 ^ salt ^ p1, PRIME) ^ (d << 3), w);
        if (k >= 2 && !context) push(buf, Math.imul(Math.imul(CHAR3 ^ p2, PRIME) ^ p1, PRIME) ^ (d << 5), w);
        p2 = p1;
        p1 = d;
        k++;
        i++;
      }
      prev = Math.imul(CHAR1 ^ p1, PRIME);
      continue;
    }
    if (isMark(c)) {
      let j = i + 1;
      while (j < n && text.charCodeAt(j) === c) j++;
      const h = Math.imul(PUNCT ^ salt ^ c ^ (j - i > 1 ? 0x10000 : 0), PRIME);
      push(buf, h, w);
      if (!context) push(buf, mix(prev, h) ^ BIGRAM, w);
      prev = h;
      i = j;
      continue;
    }
    if (c === 0x0a) {
      prev = START;
      if (!context) buf.lines++;
    }
    i++;
  }
  if (!context) push(buf, mix(prev, START) ^ BIGRAM, 1); // the last word, as the end of the text
  if (energy === 0) return;
  const scale = weight / Math.sqrt(energy);
  for (let k = from; k < buf.n; k++) buf.vals[k] = (buf.vals[k] ?? 0) * scale;
}

const cap = (v: number, max: number): number => (v > max ? 1 : v / max);

/** The dense features: the rules' cue scores (after structure, `scores` by KINDS index) and pick,
 * and the scan's structure; `turns` earlier messages, `system` a system message, `json` a JSON answer asked. */
export function denseFeatures(buf: FeatureBuffer, s: Signals, scores: Float64Array, rulesPick: number, turns: number, system: boolean, json: boolean): void {
  const d = buf.dense;
  d.fill(0);
  d[0] = 1;
  for (let k = 0; k < CLASSES; k++) d[1 + k] = Math.log1p(Math.max(0, scores[k] ?? 0));
  if (rulesPick >= 0 && rulesPick < CLASSES) d[1 + CLASSES + rulesPick] = 1;
  let o = 1 + 2 * CLASSES;
  d[o++] = s.codeFences > 0 ? 1 : 0;
  d[o++] = cap(s.codeMarks, 12);
  d[o++] = cap(s.mathMarks, 4);
  d[o++] = s.questionEnd ? 1 : 0;
  d[o++] = cap(s.entities.numbers.length, 5);
  d[o++] = Math.min(Math.log1p(s.chars) / 8, 1.5);
  d[o++] = s.words <= 6 ? 1 : 0;
  d[o++] = cap(s.questions, 3);
  d[o++] = cap(s.listItems, 5);
  d[o++] = cap(s.constraints, 5);
  d[o++] = cap(s.steps, 5);
  d[o++] = turns > 0 ? 1 : 0;
  d[o++] = system ? 1 : 0;
  d[o++] = json ? 1 : 0;
  d[o++] = s.chars > 2000 ? 1 : 0;
  // Length bands, and signs of pasted material (quotes, dates, ids, names, lines).
  d[o++] = s.words <= 3 ? 1 : 0;
  d[o++] = s.words > 6 && s.words <= 15 ? 1 : 0;
  d[o++] = s.words > 15 && s.words <= 40 ? 1 : 0;
  d[o++] = s.words > 40 ? 1 : 0;
  const e = s.entities;
  d[o++] = e.quoted.length > 0 ? 1 : 0;
  d[o++] = cap(e.dates.length + e.emails.length + e.ids.length + e.urls.length, 5);
  d[o++] = cap(e.names.length, 5);
  d[o++] = cap(buf.lines, 10);
}

/** Earlier turns add this much of their text: the start of a system message, the end of a turn. */
const CONTEXT_CHARS = 300;

/**
 * All the features of a request into `buf` (emptied first): the window of its last user turn
 * (`messages[last]`, already scanned into `s`; `rulesPick` the rules' kind index) and, with
 * `opts.context`, a little of the system message and of the two turns before.
 */
export function requestFeatures(
  buf: FeatureBuffer, window: string, s: Signals, rulesPick: number,
  messages: readonly ChatMessage[], last: number, json: boolean, opts: FeatureOptions,
): void {
  buf.n = 0;
  buf.lines = 0;
  textFeatures(buf, window, 0, window.length, opts);
  let turns = 0;
  let system = false;
  let earlier = 0;
  for (let k = 0; k < last; k++) {
    const m = messages[k];
    if (m === undefined) continue;
    if (m.role === "system" || m.role === "developer") {
      if (!system && opts.context) {
        const t = messageText(m);
        textFeatures(buf, t, 0, Math.min(t.length, CONTEXT_CHARS), opts, 0.5, true);
      }
      system = true;
    } else turns++;
  }
  if (opts.context) {
    for (let k = last - 1; k >= 0 && earlier < 2; k--) {
      const m = messages[k];
      if (m === undefined || m.role === "system" || m.role === "developer") continue;
      const t = messageText(m);
      textFeatures(buf, t, Math.max(0, t.length - CONTEXT_CHARS), t.length, opts, 0.5, true);
      earlier++;
    }
  }
  denseFeatures(buf, s, s.taskScores, rulesPick, turns, system, json);
}
