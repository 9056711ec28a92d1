// dedupe_documents (safe+, docs/optimization.md "dedupe_documents"): a retrieved document or a tool
// output repeated verbatim becomes a short reference to its first copy, which stays as it was; so
// does a repeated passage (blank-line separated) of a document.
import type { ChatMessage, ChatRequest } from "../../canonical/chat.ts";
import { expand, planPassages, snippet, type PassagePlan } from "../lib/passages.ts";
import { textRef, toolRef } from "../lib/references.ts";
import type { Stage, StageContext } from "../types.ts";

/** Texts shorter than this are left alone: the reference would save little or nothing. */
const MIN_CHARS = 200;

/** The messages a stage may dedupe: the caller's `documents` and every tool result. */
function candidate(m: ChatMessage, i: number, docs: ReadonlySet<number>): boolean {
  return m.role === "tool" || docs.has(i);
}

/** A message's text as a whole repeat is judged: string content, or the texts of content that is
 * nothing but plain text parts (`{type: "text", text}`, no other key such as a cache mark); else null. */
function wholeText(m: ChatMessage): string | null {
  const content = m.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) return null;
  let text = "";
  for (const p of content) {
    if (p.type !== "text" || typeof p.text !== "string" || Object.keys(p).length !== 2) return null;
    text += text ? `\n${p.text}` : p.text;
  }
  return text;
}

/** Two messages repeat each other when their content is the same string, or the same text parts. */
const repeatKey = (m: ChatMessage): string => (typeof m.content === "string" ? m.content : `\u0000parts${JSON.stringify(m.content)}`);

/** What replaces a repeat of message `first`: names the tool call whose output it repeats, or the
 * message's 1-based position and opening words (positions shift once an adapter moves system
 * messages out, so the words are what a model can rely on). */
export function referenceText(messages: readonly ChatMessage[], first: number): string {
  const m = messages[first]!;
  const text = wholeText(m) ?? "";
  if (m.role === "tool" && m.tool_call_id) return toolRef(m.tool_call_id);
  return textRef(first, snippet(text));
}

/** Each repeat's index mapped to the index of its first copy. Linear: one Map lookup a message. */
function planWhole(req: ChatRequest, ctx: StageContext): Map<number, number> {
  const docs = new Set(ctx.options.documents);
  const firstOf = new Map<string, number>();
  const plan = new Map<number, number>();
  req.messages.forEach((m, i) => {
    const text = candidate(m, i, docs) ? wholeText(m) : null;
    if (text === null || text.length < MIN_CHARS) return;
    const key = repeatKey(m);
    const first = firstOf.get(key);
    if (first === undefined) {
      firstOf.set(key, i);
      return;
    }
    if (ctx.untouchable.has(i)) return;
    if (referenceText(req.messages, first).length < text.length) plan.set(i, first);
  });
  return plan;
}

export interface DedupePlan {
  /** A whole repeat's index -> its first copy's. */
  whole: Map<number, number>;
  /** A message's new text when some of its passages repeat earlier ones. */
  passages: Map<number, PassagePlan>;
}

/** Fenced code is never cut into passages: the preserve gate holds code byte for byte. */
const hasFence = (text: string): boolean => text.includes("```") || text.includes("~~~");

/** Whole repeats first; then passages of the remaining documents and tool outputs, where a first
 * copy of a whole repeat stays unchanged (the repeat's reference names it). */
export function planDedupe(req: ChatRequest, ctx: StageContext): DedupePlan {
  const whole = planWhole(req, ctx);
  const firsts = new Set(whole.values());
  const docs = new Set(ctx.options.documents);
  const texts = req.messages.map((m, i) =>
    candidate(m, i, docs) && typeof m.content === "string" && !whole.has(i) && !hasFence(m.content) ? m.content : null);
  const passages = planPassages(texts, (i) => !ctx.untouchable.has(i) && !firsts.has(i));
  return { whole, passages };
}

function run(req: ChatRequest, ctx: StageContext): ChatRequest | null {
  const { whole, passages } = planDedupe(req, ctx);
  if (whole.size === 0 && passages.size === 0) return null;
  const messages = req.messages.map((m, i) => {
    const first = whole.get(i);
    if (first !== undefined) return { ...m, content: referenceText(req.messages, first) };
    const plan = passages.get(i);
    return plan ? { ...m, content: plan.text } : m;
  });
  return { ...req, messages };
}

/** A passage-deduped message: expanding its references gives the original text back, and each
 * passage stands verbatim where its reference says, in an earlier message or earlier in this one. */
function passagesHold(after: ChatRequest, i: number, original: string, plan: PassagePlan): boolean {
  const text = after.messages[i]!.content;
  if (text !== plan.text || expand(text, plan.refs) !== original) return false;
  return plan.refs.every((r) => {
    const copy = after.messages[r.msg]?.content;
    const before = r.msg < i || (r.msg === i && r.copyAt + r.passage.length <= r.at);
    return before && typeof copy === "string" && copy.startsWith(r.passage, r.copyAt);
  });
}

/** Every replaced text exists verbatim in the copy its reference names, that copy is unchanged,
 * and nothing else moved. */
function verify(before: ChatRequest, after: ChatRequest, ctx: StageContext): boolean {
  if (before.messages.length !== after.messages.length) return false;
  const { whole, passages } = planDedupe(before, ctx);
  return before.messages.every((m, i) => {
    const first = whole.get(i);
    const out = after.messages[i]!;
    const plan = passages.get(i);
    if (plan) return typeof m.content === "string" && out.role === m.role && out.tool_call_id === m.tool_call_id && passagesHold(after, i, m.content, plan);
    if (first === undefined) return out === m || JSON.stringify(out) === JSON.stringify(m);
    const copy = after.messages[first]!;
    return first < i && !whole.has(first) && wholeText(copy) !== null && repeatKey(copy) === repeatKey(m)
      && out.content === referenceText(before.messages, first) && out.role === m.role && out.tool_call_id === m.tool_call_id;
  });
}

/** judgesSmall: a repeat is replaced only by a reference to a first copy that stays, proven by
 * verify, so a chunk under the small-message size is de-duplicated too (RAG chunks often are). */
export const dedupeDocuments: Stage = { name: "dedupe_documents", from: "safe", run, verify, judgesSmall: true };
