// Stage json_minify (safe+; docs/optimization.md "json_minify"): JSON documents in tool results, user,
// system and developer texts (a whole text, one starting or ending a line, a ```json fence body) lose the
// whitespace between their tokens, literals byte for byte; with `fields`, projected first.
import type { ChatMessage, ChatRequest, ContentPart } from "../../canonical/chat.ts";
import { isWs, jsonSpans, minifyJsonText, numbersRoundTrip, spanAt } from "../json-text.ts";
import { dropPaths, keepPaths, stepsOf, type JsonValue, type Step } from "../json-paths.ts";
import type { Stage, StageContext } from "../types.ts";

// Other stages find documents the same way.
export { jsonSpans, minifyJsonText, numbersRoundTrip } from "../json-text.ts";

const ROLES: ReadonlySet<string> = new Set(["tool", "user", "system", "developer"]);

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
    if (!after.startsWith(before.slice(at, s.start), b)) return false;
    b += s.start - at;
    if (fields && numbersRoundTrip(before.slice(s.start, s.end))) {
      const got = spanAt(after, b, budget);
      if (!got || JSON.stringify(got.value) !== JSON.stringify(project(s.value, fields))) return false;
      b = got.end;
    } else if ((b = strippedAt(before, s.start, s.end, after, b)) < 0) return false;
    at = s.end;
  }
  return before.slice(at) === after.slice(b);
}

/** Where the document before[start, end) ends in `after` when `after` holds it from `at` with the
 * whitespace outside its strings removed and nothing else changed, or -1. The document parsed, and
 * JSON whitespace only sits between tokens a bracket, comma, colon or quote already separates, so
 * such a text has the same tokens, literals byte for byte: it parses to the same value, key order
 * included (stricter than comparing the two parses, and no parse or stringify). */
function strippedAt(before: string, start: number, end: number, after: string, at: number): number {
  let j = at;
  let inString = false;
  for (let i = start; i < end; i++) {
    const c = before.charCodeAt(i);
    if (!inString && isWs(c)) continue;
    if (after.charCodeAt(j++) !== c) return -1;
    if (!inString) inString = c === 34;
    else if (c === 34) inString = false;
    else if (c === 92 && after.charCodeAt(j++) !== before.charCodeAt(++i)) return -1;
  }
  return j;
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
