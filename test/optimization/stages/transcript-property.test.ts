// issue 23's property: 10,000 seeded random transcripts through tool_prune and history_window at
// random windows, modes and pins; never an orphaned tool message or tool call, order kept, system kept.
import { describe, expect, test } from "bun:test";
import type { ChatMessage, ChatRequest, FunctionTool, ToolCall } from "../../../src/canonical/chat.ts";
import { requestTokens } from "../../../src/optimization/engine.ts";
import { referencesIn } from "../../../src/optimization/lib/references.ts";
import { dedupeDocuments } from "../../../src/optimization/stages/dedupe-documents.ts";
import { historyWindow } from "../../../src/optimization/stages/history-window.ts";
import { MIN_KEPT, toolPrune } from "../../../src/optimization/stages/tool-prune.ts";
import type { StageContext, Untouchable } from "../../../src/optimization/types.ts";
import { prng as mulberry32 } from "../../../bench/lib/prng.ts";


const WORDS = ["order", "refund", "weather", "invoice", "flight", "hotel", "log", "error", "latency", "customer", "ship", "track",
  "calendar", "email", "query", "table", "report", "status", "price", "user", "account", "payment", "search", "file"];

function transcript(rand: () => number): { req: ChatRequest; ctx: StageContext } {
  const int = (n: number) => Math.floor(rand() * n);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[int(WORDS.length)]!).join(" ");
  const tools: FunctionTool[] = Array.from({ length: int(20) }, (_, i) => ({
    type: "function", function: { name: `${WORDS[int(WORDS.length)]}_${i}`, description: words(3 + int(8)) },
  }));
  const messages: ChatMessage[] = [];
  const documents: number[] = [];
  const seenUser: string[] = [];
  const seenTool: string[] = [];
  for (let s = int(3); s > 0; s--) messages.push({ role: rand() < 0.8 ? "system" : "developer", content: words(5 + int(30)) });
  let ids = 0;
  for (let turn = 1 + int(8); turn > 0; turn--) {
    for (let u = rand() < 0.2 ? 1 + int(3) : 0; u >= 0; u--) {
      // Some user texts are documents, some repeating an earlier one (dedupe_documents' input).
      if (rand() < 0.3) documents.push(messages.length);
      const again = seenUser.length > 0 && rand() < 0.15 ? seenUser[int(seenUser.length)] : undefined;
      const content = again ?? words(1 + int(rand() < 0.2 ? 120 : 30));
      seenUser.push(content);
      messages.push({ role: "user", content });
    }
    if (rand() < 0.05) messages.push({ role: "system", content: words(4) });
    for (let step = int(5); step >= 0; step--) {
      const n = tools.length > 0 ? int(4) : 0;
      if (n === 0) {
        messages.push({ role: "assistant", content: words(1 + int(60)) });
        continue;
      }
      const calls: ToolCall[] = Array.from({ length: n }, () => ({
        id: `call_${ids++}`, type: "function", function: { name: tools[int(tools.length)]!.function.name, arguments: `{"q":"${words(2)}"}` },
      }));
      messages.push({ role: "assistant", content: rand() < 0.3 ? words(5) : null, tool_calls: calls });
      const results = calls.map((c): ChatMessage => {
        const again = seenTool.length > 0 && rand() < 0.2 ? seenTool[int(seenTool.length)] : undefined;
        const content = again ?? words(1 + int(rand() < 0.3 ? 150 : 40));
        seenTool.push(content);
        return { role: "tool", tool_call_id: c.id, content };
      });
      for (let i = results.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [results[i], results[j]] = [results[j]!, results[i]!];
      }
      messages.push(...results);
    }
  }
  const req: ChatRequest = { model: "m", messages };
  if (tools.length > 0) req.tools = tools;
  const choice = int(6);
  if (choice === 0) req.tool_choice = "required";
  else if (choice === 1 && tools.length > 0) req.tool_choice = { type: "function", function: { name: tools[0]!.function.name } };
  else if (choice === 2) req.tool_choice = "auto";
  if (rand() < 0.3) req.max_tokens = 1 + int(2000);
  const pins: Untouchable[] = [];
  if (rand() < 0.2) pins.push(int(messages.length + 2));
  if (rand() < 0.1) pins.push((["tool", "assistant", "last_user", "system"] as const)[int(4)]!);
  const total = requestTokens(req);
  const options = { mode: rand() < 0.5 ? "balanced" as const : "aggressive" as const, preserve: [], do_not_compress: pins, documents, fields: { keep: [], drop: [] } };
  const windowTokens = rand() < 0.05 ? null : Math.max(1, Math.floor(total * (0.05 + rand() * 1.6)));
  return { req, ctx: { options, untouchable: new Set(), windowTokens, countTokens: requestTokens } };
}

/** The property, or the first way it fails. */
function violation(before: ChatRequest, after: ChatRequest): string | null {
  const position = new Map<ChatMessage, number>();
  before.messages.forEach((m, i) => position.set(m, i));
  let last = -1;
  for (const m of after.messages) {
    const i = position.get(m);
    if (i === undefined) {
      if (m.role !== "user" || typeof m.content !== "string" || !m.content.endsWith("fit the context window.]")) return "a message that is not the original's nor a marker";
      continue;
    }
    if (i <= last) return "order changed";
    last = i;
  }
  const kept = new Set(after.messages);
  for (const m of before.messages) if ((m.role === "system" || m.role === "developer") && !kept.has(m)) return "system message dropped";
  // The first and last user turns: each a run of consecutive user messages.
  const isUser = (i: number): boolean => before.messages[i]?.role === "user";
  for (let i = before.messages.findIndex((m) => m.role === "user"); i >= 0 && isUser(i); i++) if (!kept.has(before.messages[i]!)) return "first user turn dropped";
  for (let i = before.messages.findLastIndex((m) => m.role === "user"); i >= 0 && isUser(i); i--) if (!kept.has(before.messages[i]!)) return "last user turn dropped";
  // Every assistant's calls are followed at once by exactly their results; no tool message elsewhere.
  for (let i = 0; i < after.messages.length; i++) {
    const m = after.messages[i]!;
    if (m.role === "tool") return `orphaned tool message ${m.tool_call_id}`;
    const calls = m.tool_calls ?? [];
    if (calls.length === 0) continue;
    const want = new Set(calls.map((c) => c.id));
    for (let k = 1; k <= calls.length; k++) {
      const r = after.messages[i + k];
      if (!r || r.role !== "tool" || !r.tool_call_id || !want.delete(r.tool_call_id)) return `tool call without all its results at ${i}`;
    }
    i += calls.length;
  }
  for (let i = 1; i < after.messages.length; i++) if (!position.has(after.messages[i]!) && !position.has(after.messages[i - 1]!)) return "two markers in a row";
  if (after.tools) {
    const names = new Set(after.tools.map((t) => t.function.name));
    for (const m of after.messages) for (const c of m.tool_calls ?? []) if (!names.has(c.function.name)) return "a called tool pruned";
    if (after.tools.length < Math.min(MIN_KEPT, before.tools?.length ?? 0)) return "pruned below the minimum";
  } else if (before.tools) return "tools pruned to none";
  return null;
}

/** A kept dedupe reference whose copy was dropped, or whose "message N" now counts other messages. */
function danglingReference(before: ChatRequest, after: ChatRequest): string | null {
  const kept = new Set(after.messages);
  const outputOf = new Map<string, ChatMessage>();
  for (const m of before.messages) if (m.role === "tool" && m.tool_call_id && !outputOf.has(m.tool_call_id)) outputOf.set(m.tool_call_id, m);
  for (const m of after.messages) {
    if (typeof m.content !== "string") continue;
    const refs = referencesIn(m.content);
    for (const id of refs.callIds) if (!kept.has(outputOf.get(id)!)) return `the output of ${id} was dropped`;
    for (const n of refs.indexes) if (after.messages[n] !== before.messages[n]) return `"message ${n + 1}" now names another message`;
  }
  return null;
}

describe("history_window and tool_prune over random transcripts (issue 23 item 4)", () => {
  test("10,000 seeded transcripts: no orphaned tool message or call, order and system kept", () => {
    const rand = mulberry32(23);
    let windowed = 0;
    let pruned = 0;
    let deduped = 0;
    for (let n = 0; n < 10_000; n++) {
      const { req: sent, ctx } = transcript(rand);
      // dedupe_documents first, as the engine runs it: history_window must keep what its references name.
      const afterDedupe = dedupeDocuments.run(sent, ctx);
      if (afterDedupe) {
        deduped++;
        expect(dedupeDocuments.verify!(sent, afterDedupe, ctx)).toBe(true);
      }
      const req = afterDedupe ?? sent;
      const afterPrune = toolPrune.run(req, ctx);
      if (afterPrune) {
        pruned++;
        expect(toolPrune.verify!(req, afterPrune, ctx)).toBe(true);
      }
      const current = afterPrune ?? req;
      const afterWindow = historyWindow.run(current, ctx);
      if (afterWindow) {
        windowed++;
        expect(historyWindow.verify!(current, afterWindow, ctx)).toBe(true);
        expect(requestTokens(afterWindow)).toBeLessThan(requestTokens(current));
      }
      const final = afterWindow ?? current;
      const why = violation(req, final) ?? danglingReference(req, final);
      if (why) throw new Error(`transcript ${n}: ${why}`);
    }
    // Not vacuous: most transcripts were cut and many pruned.
    expect(windowed).toBeGreaterThan(5000);
    expect(pruned).toBeGreaterThan(1000);
    expect(deduped).toBeGreaterThan(1000);
  });

  test("the property's checker catches an orphaned result, a call without its results, reordering and a lost system message", () => {
    const rand = mulberry32(7);
    let req = transcript(rand).req;
    const usable = (r: ChatRequest) => r.messages.some((m) => (m.tool_calls?.length ?? 0) > 1) && r.messages.some((m) => m.role === "system");
    while (!usable(req)) req = transcript(rand).req;
    expect(violation(req, req)).toBeNull();
    const at = req.messages.findIndex((m) => (m.tool_calls?.length ?? 0) > 1);
    const without = (i: number): ChatRequest => ({ ...req, messages: req.messages.filter((_, k) => k !== i) });
    expect(violation(req, without(at))).toMatch(/orphaned/);
    expect(violation(req, without(at + 1))).toMatch(/without all its results/);
    expect(violation(req, { ...req, messages: [...req.messages].reverse() })).toMatch(/order/);
    expect(violation(req, without(req.messages.findIndex((m) => m.role === "system" || m.role === "developer")))).toMatch(/system/);
  });
});
