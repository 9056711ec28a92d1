// history_window (docs/optimization.md "history_window"): past the window (balanced) or always, to
// half of it (aggressive), the oldest turns go; system messages, the first and last user turns and
// do_not_compress ones stay; a tool call goes or stays with its results; a marker says what went.
import type { ChatMessage, ChatRequest } from "../../canonical/chat.ts";
import { keptIndexes } from "../engine.ts";
import { referencesIn } from "../lib/references.ts";
import { turnUnits } from "../lib/turn-units.ts";
import type { Stage, StageContext } from "../types.ts";

/** aggressive's target: this share of the window. */
export const AGGRESSIVE_SHARE = 0.5;
/** Room left for the answer when the request sets no max_tokens, as a share of the window. */
export const OUTPUT_SHARE = 0.25;

export const markerText = (dropped: number): string =>
  `[${dropped} earlier messages of this conversation were omitted here to fit the context window.]`;
const MARKER_PREFIX = "[";
const MARKER_SUFFIX = " earlier messages of this conversation were omitted here to fit the context window.]";

/** A user message: every provider accepts one between any two turns (Anthropic and Gemini merge
 * it into a neighbouring user turn); a system one would be moved out of place by their adapters. */
const marker = (dropped: number): ChatMessage => ({ role: "user", content: markerText(dropped) });

function isMarker(m: ChatMessage): boolean {
  const c = m.content;
  return m.role === "user" && typeof c === "string" && c.startsWith(MARKER_PREFIX) && c.endsWith(MARKER_SUFFIX)
    && /^\d+$/.test(c.slice(MARKER_PREFIX.length, c.length - MARKER_SUFFIX.length));
}

/** The token count to bring the request to, or null when the stage has nothing to do. */
export function targetTokens(req: ChatRequest, ctx: StageContext, total: number): number | null {
  const window = ctx.windowTokens;
  if (window === null || window <= 0) return null;
  const asked = req.max_completion_tokens ?? req.max_tokens;
  const reserve = Math.min(typeof asked === "number" && asked > 0 ? asked : window * OUTPUT_SHARE, window / 2);
  const fit = Math.floor(window - reserve);
  const mode = ctx.options.mode;
  const target = mode === "aggressive" ? Math.min(fit, Math.floor(window * AGGRESSIVE_SHARE)) : mode === "balanced" ? fit : null;
  return target !== null && total > target ? target : null;
}

function textOf(m: ChatMessage): string {
  if (typeof m.content === "string") return m.content;
  return Array.isArray(m.content) ? m.content.map((p) => (typeof p.text === "string" ? p.text : "")).join("\n") : "";
}

/** Messages that must stay: system and developer ones, the first and the last user turns (each a
 * run of consecutive user messages: documents sent with a question belong to its turn),
 * do_not_compress ones, any holding a `preserve` item (the gate would revert otherwise), and what
 * dedupe_documents' references point at: a tool call's output, and every message up to the last one
 * a "message N" reference names, so N still counts the same messages. */
function mustKeep(req: ChatRequest, ctx: StageContext): Set<number> {
  const keep = keptIndexes(req, ctx.options);
  const { messages } = req;
  const { preserve } = ctx.options;
  const patterns = preserve.flatMap((p) => (typeof p === "string" ? [] : [new RegExp(p.regex, "u")]));
  const outputOf = new Map<string, number>();
  let numbered = -1;
  messages.forEach((m, i) => {
    if (m.role === "system" || m.role === "developer") keep.add(i);
    if (m.role === "tool" && m.tool_call_id !== undefined && !outputOf.has(m.tool_call_id)) outputOf.set(m.tool_call_id, i);
    const text = textOf(m);
    const refs = referencesIn(text);
    for (const id of refs.callIds) {
      const at = outputOf.get(id);
      if (at !== undefined && at < i) keep.add(at);
    }
    for (const n of refs.indexes) if (n < i) numbered = Math.max(numbered, n);
    if (preserve.length === 0) return;
    if (preserve.some((p) => typeof p === "string" && p !== "" && text.includes(p)) || patterns.some((r) => r.test(text))) keep.add(i);
  });
  for (let i = 0; i <= numbered; i++) keep.add(i);
  const isUser = (i: number): boolean => messages[i]?.role === "user";
  for (let i = messages.findIndex((m) => m.role === "user"); i >= 0 && isUser(i); i++) keep.add(i);
  for (let i = messages.findLastIndex((m) => m.role === "user"); i >= 0 && isUser(i); i--) keep.add(i);
  return keep;
}

/** Which units go: the oldest droppable ones until the request fits the target (or none is left).
 * Units holding a message that must stay, and the last unit, never go. */
export function planWindow(req: ChatRequest, ctx: StageContext): { units: [number, number][]; dropped: boolean[] } | null {
  const total = ctx.countTokens(req);
  const target = targetTokens(req, ctx, total);
  if (target === null) return null;
  const units = turnUnits(req.messages);
  const keep = mustKeep(req, ctx);
  const base = ctx.countTokens({ ...req, messages: [], tools: undefined });
  const cost = (messages: ChatMessage[]): number => ctx.countTokens({ ...req, messages, tools: undefined }) - base;
  const markerCost = cost([marker(999)]);
  const dropped = units.map(() => false);
  let saving = 0;
  for (let u = 0; u < units.length - 1 && total - saving > target; u++) {
    const [start, end] = units[u]!;
    let pinned = false;
    for (let i = start; i < end && !pinned; i++) pinned = keep.has(i);
    if (pinned) continue;
    dropped[u] = true;
    saving += cost(req.messages.slice(start, end)) - (u > 0 && dropped[u - 1] ? 0 : markerCost);
  }
  return saving > 0 ? { units, dropped } : null;
}

function run(req: ChatRequest, ctx: StageContext): ChatRequest | null {
  const plan = planWindow(req, ctx);
  if (!plan) return null;
  const messages: ChatMessage[] = [];
  let run = 0;
  plan.units.forEach(([start, end], u) => {
    if (plan.dropped[u]) {
      run += end - start;
      return;
    }
    if (run > 0) messages.push(marker(run));
    run = 0;
    for (let i = start; i < end; i++) messages.push(req.messages[i]!);
  });
  return { ...req, messages };
}

/** The result is the original's messages in order, each dropped span replaced by one marker; the
 * messages that must stay are there; and every tool call is kept exactly with its results. */
function verify(before: ChatRequest, after: ChatRequest, ctx: StageContext): boolean {
  const index = new Map<ChatMessage, number>();
  before.messages.forEach((m, i) => index.set(m, i));
  const kept = new Set<number>();
  let last = -1;
  let afterMarker = false;
  for (const m of after.messages) {
    const i = index.get(m);
    if (i === undefined) {
      if (!isMarker(m) || afterMarker) return false;
      afterMarker = true;
      continue;
    }
    if (i <= last) return false;
    kept.add((last = i));
    afterMarker = false;
  }
  for (const i of mustKeep(before, ctx)) if (i < before.messages.length && !kept.has(i)) return false;
  const answeredBy = new Map<string, number[]>();
  before.messages.forEach((m, i) => {
    if (m.role !== "tool" || m.tool_call_id === undefined) return;
    const list = answeredBy.get(m.tool_call_id);
    if (list) list.push(i);
    else answeredBy.set(m.tool_call_id, [i]);
  });
  return before.messages.every((m, i) =>
    (m.tool_calls ?? []).every((c) => (answeredBy.get(c.id) ?? []).every((t) => kept.has(t) === kept.has(i))));
}

export const historyWindow: Stage = { name: "history_window", from: "balanced", run, verify };
