// columnar_arrays (balanced+, docs/optimization.md "columnar_arrays"): in message texts that are
// JSON, homogeneous arrays of 10 or more objects are packed as {"columns": [...], "rows": [[...]]}.
import type { ChatMessage, ChatRequest, ContentPart } from "../../canonical/chat.ts";
import { decodesToOriginal, packColumns } from "../lib/columnar.ts";
import { parseJsonText } from "../lib/json-text.ts";
import type { Stage, StageContext } from "../types.ts";

/** The text packed and re-emitted minified, or null when nothing packs or it would not be shorter. */
function packText(text: string): string | null {
  const value = parseJsonText(text);
  if (value === undefined) return null;
  const { value: out, packed, lossy } = packColumns(value);
  if (packed === 0 || lossy) return null;
  const emitted = JSON.stringify(out);
  return emitted.length < text.length ? emitted : null;
}

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

/** A changed text parses to the original value once its packed arrays are decoded. */
function textDecodes(was: string, now: string): boolean {
  const original = parseJsonText(was);
  if (original === undefined) return false;
  try {
    return decodesToOriginal(original, JSON.parse(now));
  } catch {
    return false;
  }
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
