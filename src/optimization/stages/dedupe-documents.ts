// dedupe_documents (safe+, docs/optimization.md "dedupe_documents"): a retrieved document or a tool
// output repeated verbatim becomes a short reference to its first copy, which stays as it was.
import type { ChatMessage, ChatRequest } from "../../canonical/chat.ts";
import type { Stage, StageContext } from "../types.ts";

/** Texts shorter than this are left alone: the reference would save little or nothing. */
const MIN_CHARS = 200;
const SNIPPET_CHARS = 48;

/** The messages a stage may dedupe: the caller's `documents` and every tool result. */
function candidate(m: ChatMessage, i: number, docs: ReadonlySet<number>): boolean {
  return m.role === "tool" || docs.has(i);
}

/** The first words of a text, on one line and without quotes, so the model can find the copy. */
function snippet(text: string): string {
  const flat = text.slice(0, SNIPPET_CHARS * 2).replace(/["\s]+/g, " ").trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const cut = flat.lastIndexOf(" ", SNIPPET_CHARS);
  return `${flat.slice(0, cut > 16 ? cut : SNIPPET_CHARS)}...`;
}

/** What replaces a repeat of message `first`: names the tool call whose output it repeats, or the
 * message's 1-based position and opening words (positions shift once an adapter moves system
 * messages out, so the words are what a model can rely on). */
export function referenceText(messages: readonly ChatMessage[], first: number): string {
  const m = messages[first]!;
  const text = typeof m.content === "string" ? m.content : "";
  if (m.role === "tool" && m.tool_call_id) return `[Same output as tool call ${m.tool_call_id} above; not repeated]`;
  return `[Same text as message ${first + 1} above, which begins "${snippet(text)}"; not repeated]`;
}

/** Each repeat's index mapped to the index of its first copy. Linear: one Map lookup a message. */
export function planDedupe(req: ChatRequest, ctx: StageContext): Map<number, number> {
  const docs = new Set(ctx.options.documents);
  const firstOf = new Map<string, number>();
  const plan = new Map<number, number>();
  req.messages.forEach((m, i) => {
    if (!candidate(m, i, docs) || typeof m.content !== "string" || m.content.length < MIN_CHARS) return;
    const first = firstOf.get(m.content);
    if (first === undefined) {
      firstOf.set(m.content, i);
      return;
    }
    if (ctx.untouchable.has(i)) return;
    if (referenceText(req.messages, first).length < m.content.length) plan.set(i, first);
  });
  return plan;
}

function run(req: ChatRequest, ctx: StageContext): ChatRequest | null {
  const plan = planDedupe(req, ctx);
  if (plan.size === 0) return null;
  const messages = req.messages.map((m, i) => {
    const first = plan.get(i);
    return first === undefined ? m : { ...m, content: referenceText(req.messages, first) };
  });
  return { ...req, messages };
}

/** Every replaced text exists verbatim in the copy its reference names, that copy is unchanged,
 * and nothing else moved. */
function verify(before: ChatRequest, after: ChatRequest, ctx: StageContext): boolean {
  if (before.messages.length !== after.messages.length) return false;
  const plan = planDedupe(before, ctx);
  return before.messages.every((m, i) => {
    const first = plan.get(i);
    const out = after.messages[i]!;
    if (first === undefined) return out === m || JSON.stringify(out) === JSON.stringify(m);
    const copy = after.messages[first]!;
    return first < i && !plan.has(first) && copy.content === m.content
      && out.content === referenceText(before.messages, first) && out.role === m.role && out.tool_call_id === m.tool_call_id;
  });
}

export const dedupeDocuments: Stage = { name: "dedupe_documents", from: "safe", run, verify };
