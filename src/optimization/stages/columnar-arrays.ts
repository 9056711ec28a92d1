// columnar_arrays (balanced+, docs/optimization.md "columnar_arrays"): in the JSON documents of message
// texts (json_minify's spans), homogeneous arrays of 10+ objects become {"columns": [...], "rows": [[...]]}.
import type { ChatMessage, ChatRequest, ContentPart } from "../../canonical/chat.ts";
import { decodesToOriginal, MIN_ROWS, packColumns } from "../lib/columnar.ts";
import { scanLiteral } from "../lib/json-text.ts";
import type { Stage, StageContext } from "../types.ts";
import { jsonSpans } from "./json-minify.ts";

/** One document packed and written minified, or null when nothing packs, a number literal would
 * not write back as it was, a key repeats (parsing dropped a member), or it would not be shorter. */
function packDocument(literal: string, value: unknown): string | null {
  const { value: out, packed, lossy, members } = packColumns(value);
  if (packed === 0 || lossy) return null;
  const written = scanLiteral(literal);
  if (!written.exact || written.members !== members) return null;
  const emitted = JSON.stringify(out);
  return emitted.length < literal.length ? emitted : null;
}

/** The text with its documents packed; `check` (verify's) must hold for each packed one. */
function rewrite(text: string, check?: (value: unknown, emitted: string) => boolean): string | null {
  let out = "";
  let from = 0;
  let changed = false;
  for (const span of jsonSpans(text)) {
    const literal = text.slice(span.start, span.end);
    const emitted = packDocument(literal, span.value);
    if (emitted !== null && check && !check(span.value, emitted)) return null;
    out += text.slice(from, span.start) + (emitted ?? literal);
    from = span.end;
    changed ||= emitted !== null;
  }
  return changed ? out + text.slice(from) : null;
}

/** Fewer than MIN_ROWS "{" means no array of MIN_ROWS objects: most texts stop at this scan. */
function mayHoldRows(text: string): boolean {
  let braces = 0;
  for (let i = text.indexOf("{"); i >= 0 && braces < MIN_ROWS; i = text.indexOf("{", i + 1)) braces++;
  return braces >= MIN_ROWS;
}

const packText = (text: string): string | null => {
  if (!mayHoldRows(text)) return null;
  const out = rewrite(text);
  return out !== null && out.length < text.length ? out : null;
};

function packMessage(m: ChatMessage): ChatMessage | null {
  if (typeof m.content === "string") {
    const text = packText(m.content);
    return text === null ? null : { ...m, content: text };
  }
  if (!Array.isArray(m.content)) return null;
  let changed = false;
  const parts = m.content.map((p): ContentPart => {
    const text = p.type === "text" && typeof p.text === "string" ? packText(p.text) : null;
    if (text === null) return p;
    changed = true;
    return { ...p, text };
  });
  return changed ? { ...m, content: parts } : null;
}

function run(req: ChatRequest, ctx: StageContext): ChatRequest | null {
  let changed = false;
  const messages = req.messages.map((m, i) => {
    if (ctx.untouchable.has(i) || m.role === "assistant") return m;
    const out = packMessage(m);
    if (!out) return m;
    changed = true;
    return out;
  });
  return changed ? { ...req, messages } : null;
}

/** A message's content as parts, for comparing a message before and after. */
function partsOf(m: ChatMessage): ContentPart[] {
  if (typeof m.content === "string") return [{ type: "text", text: m.content }];
  return Array.isArray(m.content) ? m.content : [];
}

/** A changed text is the original with each packed document replaced by one whose arrays decode to
 * the original's rows exactly, and the text around the documents unchanged. */
function textDecodes(was: string, now: string): boolean {
  const decodes = (value: unknown, emitted: string): boolean => decodesToOriginal(value, JSON.parse(emitted));
  return rewrite(was, decodes) === now;
}

/** Only texts changed, and each changed one decodes back to its original value. */
function verify(before: ChatRequest, after: ChatRequest): boolean {
  if (before.messages.length !== after.messages.length) return false;
  return before.messages.every((m, i) => {
    const out = after.messages[i]!;
    if (out === m) return true;
    const [was, now] = [partsOf(m), partsOf(out)];
    if (was.length !== now.length || out.role !== m.role || out.tool_call_id !== m.tool_call_id) return false;
    return was.every((p, k) => {
      const q = now[k]!;
      if (p === q || (p.type === "text" && q.type === "text" && p.text === q.text)) return true;
      return typeof p.text === "string" && typeof q.text === "string" && q.type === p.type && textDecodes(p.text, q.text);
    });
  });
}

export const columnarArrays: Stage = { name: "columnar_arrays", from: "balanced", run, verify };
