// JSON inside chat texts, found and minified as text (docs/optimization.md "json_minify"): where a
// document opens and closes, a cheap look before parsing, whitespace out, and which documents
// JSON.stringify may re-emit without changing a number. Linear in the text.
import { nextFence } from "./gates.ts";
import type { JsonValue } from "./json-paths.ts";

export const isWs = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;
const isOpen = (c: number): boolean => c === 123 || c === 91;

/** Where the JSON value opening at `start` ({ or [) closes (the index after it), string-aware, or
 * -1; `budget.left` bounds the characters all attempts on one text may scan. */
function matchEnd(text: string, start: number, budget: { left: number; fails: number }): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    if (--budget.left < 0) return -1;
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      else if (c === 10) return -1; // JSON strings hold no raw newline
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

export interface Span {
  start: number;
  end: number;
  value: JsonValue;
}

/** The last texts' documents: verify reads the spans run found in the same text (both in one
 * synchronous engine call), so each document is parsed once. Bounded by the characters of the texts
 * held, enough for a 100k-token request, and emptied when full. */
const spansMemo = new Map<string, Span[]>();
const SPANS_MEMO_CHARS = 1 << 19;
let memoChars = 0;

/** The JSON documents of a text, in order: each opens a line (after blanks) or ends one, or fills a
 * ```json fence; never inside other fences. `inline` also takes one starting at a line's first
 * bracket ("returned: {...}" once minified). Linear: failed attempts share a budget of 4x the text
 * and at most MAX_FAILED_PARSES parses. */
export function jsonSpans(text: string, inline = false): Span[] {
  const memo = inline ? inlineMemo : spansMemo;
  let spans = memo.get(text);
  if (spans) return spans;
  spans = findSpans(text, inline);
  if (memoChars + text.length > SPANS_MEMO_CHARS) (spansMemo.clear(), inlineMemo.clear(), (memoChars = 0));
  if (text.length <= SPANS_MEMO_CHARS) (memo.set(text, spans), (memoChars += text.length));
  return spans;
}
/** The same for `inline` (whitespace's run and verify read one text's). */
const inlineMemo = new Map<string, Span[]>();

function findSpans(text: string, inline: boolean): Span[] {
  const spans: Span[] = [];
  const budget = { left: 4 * text.length + 64, fails: 0 };
  let i = 0;
  while (i < text.length) {
    const eol = text.indexOf("\n", i);
    const lineEnd = eol < 0 ? text.length : eol;
    const fence = nextFence(text.slice(i, lineEnd), 0);
    if (fence) {
      const close = nextFence(text, lineEnd + 1, fence.mark);
      const bodyEnd = close ? close.start : text.length;
      if (text.slice(i, lineEnd).trim().slice(3).trim().toLowerCase() === "json") {
        const span = spanAt(text, firstInk(text, lineEnd + 1, bodyEnd), budget);
        if (span && span.end <= bodyEnd) spans.push(span);
      }
      i = close ? close.end + 1 : text.length;
      continue;
    }
    let span: Span | null = null;
    const first = firstInk(text, i, lineEnd);
    if (first < lineEnd && isOpen(text.charCodeAt(first))) span = spanAt(text, first, budget);
    if (!span) {
      let last = lineEnd - 1;
      while (last > first && isWs(text.charCodeAt(last))) last--;
      if (last > first && isOpen(text.charCodeAt(last))) span = spanAt(text, last, budget);
    }
    if (!span && inline && first < lineEnd) {
      // A document inside a line ("returned: {...}" once minified): the line's first opener.
      const inner = firstOpener(text, first + 1, lineEnd);
      if (inner >= 0) span = spanAt(text, inner, budget);
    }
    if (span) {
      spans.push(span);
      const next = text.indexOf("\n", span.end);
      i = next < 0 ? text.length : next + 1;
      // The rest of the closing line is text: looked at again only if it opens another line.
      continue;
    }
    i = lineEnd + 1;
  }
  return spans;
}

function firstOpener(text: string, from: number, to: number): number {
  for (let j = from; j < to; j++) if (isOpen(text.charCodeAt(j))) return j;
  return -1;
}

function firstInk(text: string, from: number, to: number): number {
  while (from < to && isWs(text.charCodeAt(from))) from++;
  return from;
}

/** Parse attempts that may fail in one text: a log of "[2026-11-14 10:05] ..." lines costs a
 * thrown error each, so past this many the remaining candidates are passed over. */
const MAX_FAILED_PARSES = 16;

export function spanAt(text: string, start: number, budget: { left: number; fails: number }): Span | null {
  if (start >= text.length || !isOpen(text.charCodeAt(start)) || budget.fails >= MAX_FAILED_PARSES) return null;
  const end = matchEnd(text, start, budget);
  if (end < 0 || !plausible(text, start, end)) return null;
  try {
    return { start, end, value: JSON.parse(text.slice(start, end)) as JsonValue };
  } catch {
    budget.fails++;
    return null;
  }
}

// Letters JSON allows outside strings: true, false, null and exponents.
const JSON_LETTERS = new Set("truefalsnE".split("").map((c) => c.charCodeAt(0)));

/** A cheap look before JSON.parse: outside strings, no letter but those of true/false/null and
 * exponents, and no two numbers separated by whitespace alone ("[code 5]", "[2026-11-14 10:05]"). */
function plausible(text: string, start: number, end: number): boolean {
  let inString = false;
  let lastInk = 0; // the last character outside strings that is not whitespace
  let gap = false; // whitespace since lastInk
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (isWs(c)) {
      gap = true;
      continue;
    }
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (letter && !JSON_LETTERS.has(c)) return false;
    const digit = c >= 48 && c <= 57;
    if (gap && (digit || letter) && ((lastInk >= 48 && lastInk <= 57) || lastInk === 101 || lastInk === 108)) return false;
    if (c === 34) inString = true;
    lastInk = c;
    gap = false;
  }
  return true;
}

/** Valid JSON text without the whitespace outside its strings: every literal stays as written. */
export function minifyJsonText(text: string): string {
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (isWs(c)) {
      if (i > from) out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Every number literal of a JSON text is written back as it was by JSON.stringify: `fields`
 * re-serialises a document, which must not turn 9007199254740993 into ...992 or 12.50 into 12.5;
 * a document where it would is minified as text, without `fields`. */
export function numbersRoundTrip(doc: string): boolean {
  let inString = false;
  for (let i = 0; i < doc.length; i++) {
    const c = doc.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < doc.length && isNumberChar(doc.charCodeAt(j))) j++;
      const literal = doc.slice(i, j);
      if (String(Number(literal)) !== literal) return false;
      i = j - 1;
    }
  }
  return true;
}
const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
