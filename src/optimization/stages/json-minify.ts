// Stage json_minify (safe+; docs/optimization.md "json_minify"): JSON documents in tool results, user,
// system and developer texts (a whole text, one starting or ending a line, a ```json fence body) lose the
// whitespace between their tokens, literals byte for byte; with `fields`, projected first.
import type { ChatMessage, ChatRequest, ContentPart } from "../../canonical/chat.ts";
import { nextFence } from "../gates.ts";
import { dropPaths, keepPaths, stepsOf, type JsonValue, type Step } from "../json-paths.ts";
import type { Stage, StageContext } from "../types.ts";

const ROLES: ReadonlySet<string> = new Set(["tool", "user", "system", "developer"]);
const isWs = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;
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

interface Span {
  start: number;
  end: number;
  value: JsonValue;
}

/** The last texts' documents: verify reads the spans run found in the same text (both run in one
 * synchronous engine call, so a few entries are enough). */
const spansMemo = new Map<string, Span[]>();
const SPANS_MEMO_SIZE = 16;

/** The JSON documents of a text, in order: each opens a line (after blanks) or ends one, or fills a
 * ```json fence; never inside other fences. Linear: failed attempts share a budget of 4x the text. */
export function jsonSpans(text: string): Span[] {
  let spans = spansMemo.get(text);
  if (spans) return spans;
  spans = findSpans(text);
  if (spansMemo.size >= SPANS_MEMO_SIZE) spansMemo.clear();
  spansMemo.set(text, spans);
  return spans;
}

function findSpans(text: string): Span[] {
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

function firstInk(text: string, from: number, to: number): number {
  while (from < to && isWs(text.charCodeAt(from))) from++;
  return from;
}

/** Parse attempts that may fail in one text: a log of "[2026-11-14 10:05] ..." lines costs a
 * thrown error each, so past this many the remaining candidates are passed over. */
const MAX_FAILED_PARSES = 16;

function spanAt(text: string, start: number, budget: { left: number; fails: number }): Span | null {
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

interface Fields {
  keep: Step[][];
  drop: Step[][];
}

function project(value: JsonValue, fields: Fields): JsonValue {
  let v = value;
  if (fields.keep.length > 0) v = keepPaths(v, fields.keep) ?? v;
  if (fields.drop.length > 0) v = dropPaths(v, fields.drop);
  return v;
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

/** A text with its JSON documents minified (and projected), or null when nothing changes. */
function minified(text: string, fields: Fields | null): string | null {
  if (text.indexOf("{") < 0 && text.indexOf("[") < 0) return null;
  const spans = jsonSpans(text);
  if (spans.length === 0) return null;
  let out = "";
  let at = 0;
  for (const s of spans) {
    const doc = text.slice(s.start, s.end);
    out += text.slice(at, s.start) + (fields && numbersRoundTrip(doc) ? JSON.stringify(project(s.value, fields)) : minifyJsonText(doc));
    at = s.end;
  }
  out += text.slice(at);
  return out === text ? null : out;
}

const fieldsOf = (ctx: StageContext): Fields | null => {
  const { keep, drop } = ctx.options.fields;
  return keep.length > 0 || drop.length > 0 ? { keep: stepsOf(keep), drop: stepsOf(drop) } : null;
};

/** A message with each text's JSON minified, or null when none changed. */
function minifyMessage(m: ChatMessage, fields: Fields | null): ChatMessage | null {
  if (typeof m.content === "string") {
    const out = minified(m.content, fields);
    return out === null ? null : { ...m, content: out };
  }
  const content = m.content;
  if (!Array.isArray(content)) return null;
  let parts: ContentPart[] | null = null;
  content.forEach((p, i) => {
    const out = p.type === "text" && typeof p.text === "string" ? minified(p.text, fields) : null;
    if (out !== null) (parts ??= content.slice())[i] = { ...p, text: out };
  });
  return parts ? { ...m, content: parts } : null;
}

function eachEligible(req: ChatRequest, ctx: StageContext, fields: Fields | null): ChatRequest | null {
  let messages: ChatMessage[] | null = null;
  req.messages.forEach((m, i) => {
    if (!ROLES.has(m.role) || ctx.untouchable.has(i)) return;
    const out = minifyMessage(m, fields);
    if (out) (messages ??= req.messages.slice())[i] = out;
  });
  return messages ? { ...req, messages } : null;
}

/** The request with `fields` applied to its JSON: what the preserve gate compares against, since
 * facts in dropped fields are meant to go. */
export function applyFields(req: ChatRequest, ctx: StageContext): ChatRequest {
  return eachEligible(req, ctx, fieldsOf(ctx)) ?? req;
}

function texts(m: ChatMessage): string[] {
  if (typeof m.content === "string") return [m.content];
  if (!Array.isArray(m.content)) return [];
  return m.content.map((p) => (typeof p.text === "string" ? p.text : ""));
}

/** Each changed text is the original with each JSON document replaced by one that parses to the
 * same value (after `fields`), key order included; the text between documents unchanged. */
function sameDocuments(before: string, after: string, fields: Fields | null): boolean {
  const budget = { left: 4 * after.length + 64, fails: 0 };
  let at = 0;
  let b = 0;
  for (const s of jsonSpans(before)) {
    const between = before.slice(at, s.start);
    if (!after.startsWith(between, b)) return false;
    const got = spanAt(after, b + between.length, budget);
    const projected = fields && numbersRoundTrip(before.slice(s.start, s.end));
    if (!got || JSON.stringify(got.value) !== JSON.stringify(projected ? project(s.value, fields) : s.value)) return false;
    at = s.end;
    b = got.end;
  }
  return before.slice(at) === after.slice(b);
}

function verify(before: ChatRequest, after: ChatRequest, ctx: StageContext): boolean {
  if (before.messages.length !== after.messages.length) return false;
  const fields = fieldsOf(ctx);
  for (let i = 0; i < before.messages.length; i++) {
    const a = before.messages[i]!;
    const b = after.messages[i]!;
    if (a === b) continue;
    const ta = texts(a);
    const tb = texts(b);
    if (ta.length !== tb.length) return false;
    for (let j = 0; j < ta.length; j++) if (ta[j] !== tb[j] && !sameDocuments(ta[j]!, tb[j]!, fields)) return false;
  }
  return true;
}

export const jsonMinify: Stage = {
  name: "json_minify",
  from: "safe",
  run: (req, ctx) => eachEligible(req, ctx, fieldsOf(ctx)),
  verify,
};
