// What the optimisation bench checks on one case, independently of the engine's own gates: gold facts,
// the cache guard's entities, JSON parse and deep-equality (columns decoded here), code byte-equality.
import { guardEntities } from "../../src/cache/semantic-guard.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";

/** Every text of a message a model reads: contents, text parts, tool-call arguments. */
export function messageTexts(m: ChatMessage): string[] {
  const out: string[] = [];
  if (typeof m.content === "string") out.push(m.content);
  else if (Array.isArray(m.content)) for (const p of m.content) if (typeof p.text === "string") out.push(p.text);
  for (const call of m.tool_calls ?? []) out.push(call.function.arguments);
  return out;
}

export const requestTexts = (req: ChatRequest): string[] => req.messages.flatMap(messageTexts);

/** Gold facts still present anywhere in the request (a de-duplicated copy counts through the first). */
export function goldKept(gold: readonly string[], after: ChatRequest): number {
  const all = requestTexts(after).join("\n\u0000\n");
  return gold.filter((g) => all.includes(g)).length;
}

const KINDS = ["numbers", "dates", "emails", "urls", "quoted"] as const;

/** Pieces of a text small enough for the guard's lists (24 a kind): cut after a newline, and between
 * JSON elements (`,"`, `,{`, `[{`...), where no number, date, URL or quoted string runs across. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    const cut = c === "\n" || ((c === "," || c === "[" || c === "{") && (next === '"' || next === "{" || next === "["));
    if (cut && i + 1 - from >= 80) (out.push(text.slice(from, i + 1)), (from = i + 1));
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/** The guard's entities of the texts, by kind, read piece by piece so no list is cut short. */
function entitySets(texts: readonly string[]): Map<string, Set<string>> {
  const sets = new Map<string, Set<string>>(KINDS.map((k) => [k, new Set<string>()]));
  for (const text of texts) {
    for (const piece of pieces(text)) {
      const e = guardEntities(piece);
      for (const k of KINDS) for (const v of e[k]) sets.get(k)?.add(v);
    }
  }
  return sets;
}

/** A number the guard read in the original, standing alone in the result's text. The guard reads
 * "820,361,16" as one number with thousands separators: packed rows and minified arrays of numbers
 * put values side by side like that, and each value is still there. */
function standsAlone(n: string, text: string): boolean {
  const plain = n.startsWith("neg") ? `-${n.slice(3)}` : n;
  const digit = (c: number): boolean => c >= 48 && c <= 57;
  for (let at = text.indexOf(plain); at >= 0; at = text.indexOf(plain, at + 1)) {
    const prev = text.charCodeAt(at - 1);
    const next = text.charCodeAt(at + plain.length);
    if (digit(prev) || prev === 46 || digit(next)) continue;
    if (next === 46 && digit(text.charCodeAt(at + plain.length + 1))) continue;
    return true;
  }
  return false;
}

/** The cache guard's entities of the original (numbers and ids, dates, e-mails, URLs, quoted
 * strings) found again in the result's: [found, total]. */
export function entityRecall(before: ChatRequest, after: ChatRequest): [number, number] {
  const a = entitySets(requestTexts(before));
  const afterTexts = requestTexts(after);
  const b = entitySets(afterTexts);
  const joined = afterTexts.join("\n");
  let found = 0;
  let total = 0;
  for (const k of KINDS) {
    const have = b.get(k) ?? new Set<string>();
    for (const e of a.get(k) ?? []) (total++, (have.has(e) || (k === "numbers" && standsAlone(e, joined))) && found++);
  }
  return [found, total];
}

/** `{"columns": [...], "rows": [[...]]}` back to the array of objects it packs, anywhere in a value. */
export function decodeColumns(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeColumns);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const obj = value as Record<string, unknown>;
  const columns = obj["columns"];
  const rows = obj["rows"];
  if (entries.length === 2 && Array.isArray(columns) && columns.every((c) => typeof c === "string") && Array.isArray(rows) && rows.every((r) => Array.isArray(r) && r.length === columns.length)) {
    return rows.map((r: unknown[]) => Object.fromEntries(columns.map((c: string, i) => [c, decodeColumns(r[i])])));
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, decodeColumns(v)]));
}

/** The end of the JSON value opening at `from` (bracket depth, strings skipped), or -1. */
function closeOf(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

export interface JsonSpan {
  raw: string;
  value: unknown;
  ok: boolean;
}

/** JSON values in a text: the text whole, else each span opening with `{` or `[` at a line's start
 * (after indentation) that closes; NDJSON gives one per line. `ok` false: it opened and closed like
 * JSON but does not parse. */
export function jsonSpans(text: string): JsonSpan[] {
  const out: JsonSpan[] = [];
  const whole = text.trim();
  if (/^[[{]/.test(whole)) {
    try {
      return [{ raw: whole, value: JSON.parse(whole), ok: true }];
    } catch {
      // not one document: look for spans inside
    }
  }
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (text[j] === " " || text[j] === "\t") j++;
    const c = text[j];
    const end = c === "{" || c === "[" ? closeOf(text, j) : -1;
    if (end > 0) {
      const raw = text.slice(j, end);
      let value: unknown;
      let ok = true;
      try {
        value = JSON.parse(raw);
      } catch {
        ok = false;
      }
      // A bracketed line that is not JSON ("[source: ...]", "[x] done") is prose, not a broken span.
      if (ok || /[{[]\s*"/.test(raw.slice(0, 40))) out.push({ raw, value, ok });
      i = ok ? end : j + 1;
    } else {
      const nl = text.indexOf("\n", j);
      if (nl < 0) break;
      i = nl + 1;
    }
  }
  return out;
}

/** Fenced blocks, `<pre>` blocks and markdown indented blocks (4 spaces or a tab after a blank
 * line), outside JSON: what the whitespace stage must leave byte-equal. A ```json fence is JSON,
 * held to deep-equality instead (json_minify may minify it). */
export function codeBlocks(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/```([^\n]*)\n[\s\S]*?```/g)) if (m[1]?.trim() !== "json") out.push(m[0]);
  for (const m of text.matchAll(/<pre>[\s\S]*?<\/pre>/g)) out.push(m[0]);
  if (/^\s*[[{]/.test(text)) return out;
  const prose = text.replace(/```[^\n]*\n[\s\S]*?```/g, "");
  for (const m of prose.matchAll(/(?:^|\n\n)((?:(?: {4}|\t)[^\n]*\n?|\n(?= {4}|\t))+)/g)) {
    const block = (m[1] ?? "").replace(/\n+$/, "");
    if (block.includes("\n")) out.push(block);
  }
  return out;
}

/** What one case gives the report, besides tokens and time. */
export interface Checks {
  gold: [number, number];
  entities: [number, number];
  /** JSON spans of the result that parse / all spans of the result that look like JSON. */
  jsonValid: [number, number];
  /** JSON values of the original found deep-equal in the result (columns decoded) / all. */
  jsonEqual: [number, number];
  code: [number, number];
}

const canonical = (v: unknown): string => JSON.stringify(decodeColumns(v));

export function checkCase(before: ChatRequest, after: ChatRequest, gold: readonly string[]): Checks {
  const beforeTexts = requestTexts(before);
  const afterTexts = requestTexts(after);
  const afterSpans = afterTexts.flatMap(jsonSpans);
  const have = new Set(afterSpans.filter((s) => s.ok).map((s) => canonical(s.value)));
  const wanted = beforeTexts.flatMap(jsonSpans).filter((s) => s.ok);
  const blocks = beforeTexts.flatMap(codeBlocks);
  const all = afterTexts.join("\n\u0000\n");
  return {
    gold: [goldKept(gold, after), gold.length],
    entities: entityRecall(before, after),
    jsonValid: [afterSpans.filter((s) => s.ok).length, afterSpans.length],
    jsonEqual: [wanted.filter((s) => have.has(canonical(s.value))).length, wanted.length],
    code: [blocks.filter((b) => all.includes(b)).length, blocks.length],
  };
}
