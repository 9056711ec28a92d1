import { describe, expect, test } from "bun:test";
import type { ChatMessage, ChatRequest } from "../../../src/canonical/chat.ts";
import { turnUnits } from "../../../src/optimization/lib/turn-units.ts";
import { dedupeDocuments } from "../../../src/optimization/stages/dedupe-documents.ts";
import { historyWindow, markerText } from "../../../src/optimization/stages/history-window.ts";
import { makeCtx, snapshot } from "./ctx.ts";

const logLines = (n: number, seed: number): string =>
  Array.from({ length: 12 }, (_, k) => `2026-11-${10 + (k % 9)}T0${k % 10}:1${k % 6}:00Z host-${(seed * 31 + k) % 17} GET /api/orders/${seed * 1000 + k} 200 ${12 + ((n + k) % 40)}ms`).join("\n");

/** An agent transcript: system, the task, 20 rounds of (sometimes parallel) tool calls with their
 * log results and a short assistant note, then the latest question. */
function agentTranscript(): ChatRequest {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are an SRE assistant. Use the log tools; cite request ids." },
    { role: "user", content: "Find why checkout latency rose on 2026-11-14 and list the slow endpoints." },
  ];
  for (let r = 0; r < 20; r++) {
    const calls = Array.from({ length: 1 + (r % 3) }, (_, k) => ({
      id: `call_${r}_${k}`, type: "function" as const, function: { name: "search_logs", arguments: JSON.stringify({ host: `host-${r}`, page: k }) },
    }));
    messages.push({ role: "assistant", content: null, tool_calls: calls });
    for (const c of calls) messages.push({ role: "tool", tool_call_id: c.id, content: logLines(r, r * 3 + Number(c.id.at(-1))) });
    messages.push({ role: "assistant", content: `Round ${r}: nothing above 50ms on host-${r}.` });
  }
  messages.push({ role: "user", content: "Summarise the slowest three endpoints you found." });
  return { model: "gpt-4o", messages };
}

function pairsIntact(messages: readonly ChatMessage[]): boolean {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) calls.add(c.id);
    if (m.role === "tool") {
      if (!m.tool_call_id || !calls.has(m.tool_call_id)) return false;
      answered.add(m.tool_call_id);
    }
  }
  return [...calls].every((id) => answered.has(id));
}

const markers = (req: ChatRequest): ChatMessage[] => req.messages.filter((m) => typeof m.content === "string" && m.content.endsWith("fit the context window.]"));

describe("history_window (docs/optimization.md)", () => {
  test("balanced: over the window, the oldest turns go; system, first and last user turns stay; one marker", () => {
    const req = agentTranscript();
    const before = snapshot(req);
    const total = makeCtx().countTokens(req);
    const ctx = makeCtx({ mode: "balanced" }, { windowTokens: Math.floor(total / 1.5) });
    const out = historyWindow.run(req, ctx)!;
    expect(req).toEqual(before);
    expect(ctx.countTokens(out)).toBeLessThanOrEqual(Math.floor(total / 1.5) * 0.75);
    expect(out.messages.slice(0, 2)).toEqual(req.messages.slice(0, 2));
    expect(out.messages[2]).toEqual({ role: "user", content: expect.stringMatching(/^\[\d+ earlier messages/) });
    expect(markers(out)).toHaveLength(1);
    expect(out.messages.at(-1)).toBe(req.messages.at(-1)!);
    const tail = out.messages.slice(3);
    expect(tail).toEqual(req.messages.slice(req.messages.length - tail.length));
    expect(Number(String(out.messages[2]!.content).slice(1).split(" ")[0])).toBe(req.messages.length - out.messages.length + 1);
    expect(pairsIntact(out.messages)).toBe(true);
    expect(out.messages[3]!.role).not.toBe("tool");
    expect(historyWindow.verify!(req, out, ctx)).toBe(true);
  });

  test("balanced does nothing within the window or without one; aggressive trims to half the window; safe never runs it", () => {
    const req = agentTranscript();
    const total = makeCtx().countTokens(req);
    expect(historyWindow.run(req, makeCtx({ mode: "balanced" }, { windowTokens: total * 2 }))).toBeNull();
    expect(historyWindow.run(req, makeCtx({ mode: "balanced" }, { windowTokens: null }))).toBeNull();
    expect(historyWindow.run(req, makeCtx({ mode: "aggressive" }, { windowTokens: null }))).toBeNull();
    expect(historyWindow.run(req, makeCtx({ mode: "safe" }, { windowTokens: 100 }))).toBeNull();
    const ctx = makeCtx({ mode: "aggressive" }, { windowTokens: total * 1.2 });
    const out = historyWindow.run(req, ctx)!;
    expect(ctx.countTokens(out)).toBeLessThanOrEqual(total * 0.6);
    expect(historyWindow.verify!(req, out, ctx)).toBe(true);
    // max_tokens is the room kept for the answer: asking for more output trims more.
    const balanced = makeCtx({ mode: "balanced" }, { windowTokens: Math.floor(total * 1.2) });
    const fitted = historyWindow.run(req, balanced)!;
    expect(ctx.countTokens(fitted)).toBeLessThanOrEqual(total * 0.9);
    const roomy = historyWindow.run({ ...req, max_tokens: Math.floor(total * 0.5) }, balanced)!;
    expect(ctx.countTokens(roomy)).toBeLessThanOrEqual(total * 0.7);
    expect(roomy.messages.length).toBeLessThan(fitted.messages.length);
  });

  test("do_not_compress and preserve items pin their turn (with its tool pair): two spans, two markers", () => {
    const req = agentTranscript();
    const ctx0 = makeCtx();
    const total = ctx0.countTokens(req);
    const pinned = req.messages.findIndex((m) => m.role === "tool" && m.tool_call_id === "call_4_1");
    const ctx = makeCtx({ mode: "aggressive", do_not_compress: [pinned] }, { windowTokens: Math.floor(total * 0.8) });
    const out = historyWindow.run(req, ctx)!;
    for (const id of ["call_4_0", "call_4_1"]) expect(out.messages.some((m) => m.tool_call_id === id)).toBe(true);
    expect(markers(out)).toHaveLength(2);
    expect(pairsIntact(out.messages)).toBe(true);
    expect(historyWindow.verify!(req, out, ctx)).toBe(true);
    const kept = makeCtx({ mode: "aggressive", preserve: ["Round 2:"] }, { windowTokens: Math.floor(total * 0.8) });
    expect(historyWindow.run(req, kept)!.messages.some((m) => m.content === "Round 2: nothing above 50ms on host-2.")).toBe(true);
  });

  test("documents sent with the first or the last question belong to that turn and stay", () => {
    const doc = (k: number): ChatMessage => ({ role: "user", content: `[source: kb/doc-${k}.md]\n${logLines(k, k)}` });
    const pack: ChatRequest = { model: "m", messages: [{ role: "system", content: "Answer from the documents." }, doc(1), doc(2), doc(3), { role: "user", content: "Which host was slowest?" }] };
    const total = makeCtx().countTokens(pack);
    expect(historyWindow.run(pack, makeCtx({ mode: "aggressive" }, { windowTokens: Math.floor(total / 2) }))).toBeNull();
    const chat: ChatRequest = { ...pack, messages: [...pack.messages, { role: "assistant", content: logLines(9, 9) }, doc(4), doc(5), { role: "user", content: "And on host-3?" }] };
    const ctx = makeCtx({ mode: "aggressive" }, { windowTokens: Math.floor(makeCtx().countTokens(chat) * 1.2) });
    const out = historyWindow.run(chat, ctx)!;
    expect(out.messages).toEqual([...chat.messages.slice(0, 5), { role: "user", content: markerText(1) }, ...chat.messages.slice(6)]);
    expect(historyWindow.verify!(chat, out, ctx)).toBe(true);
  });

  test("what a dedupe_documents reference points at stays, and a numbered reference still counts the same messages", () => {
    const req = agentTranscript();
    const doc = `[source: runbook.md]\n${logLines(50, 50)}`;
    // A document given mid-conversation, repeated by a later tool output: deduped to "message 24".
    req.messages.splice(23, 0, { role: "user", content: doc });
    const repeat = req.messages.findLastIndex((m) => m.role === "tool");
    req.messages[repeat] = { ...req.messages[repeat]!, content: doc };
    const ctx0 = makeCtx({ documents: [23] });
    const deduped = dedupeDocuments.run(req, ctx0)!;
    expect(deduped.messages[repeat]!.content).toStartWith("[Same text as message 24 above");
    const ctx = makeCtx({ mode: "aggressive" }, { windowTokens: Math.floor(ctx0.countTokens(deduped) * 0.8) });
    const out = historyWindow.run(deduped, ctx)!;
    expect(out.messages.slice(0, 24)).toEqual(deduped.messages.slice(0, 24));
    expect(out.messages).toContain(deduped.messages[repeat]!);
    expect(historyWindow.verify!(deduped, out, ctx)).toBe(true);
  });

  test("verify refuses an orphaned result, a reordered turn, a lost system message and doubled markers", () => {
    const req = agentTranscript();
    const total = makeCtx().countTokens(req);
    const ctx = makeCtx({ mode: "aggressive" }, { windowTokens: total });
    const out = historyWindow.run(req, ctx)!;
    const call = out.messages.findIndex((m) => m.tool_calls && m.tool_calls.length > 1);
    const without = (i: number): ChatRequest => ({ ...out, messages: out.messages.filter((_, k) => k !== i) });
    expect(historyWindow.verify!(req, without(call + 1), ctx)).toBe(false);
    expect(historyWindow.verify!(req, without(call), ctx)).toBe(false);
    expect(historyWindow.verify!(req, without(0), ctx)).toBe(false);
    const swapped = [...out.messages];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    expect(historyWindow.verify!(req, { ...out, messages: swapped }, ctx)).toBe(false);
    const doubled = [...out.messages.slice(0, 3), { role: "user" as const, content: markerText(1) }, ...out.messages.slice(3)];
    expect(historyWindow.verify!(req, { ...out, messages: doubled }, ctx)).toBe(false);
  });
});

describe("turn units", () => {
  const call = (id: string) => ({ id, type: "function" as const, function: { name: "f", arguments: "{}" } });
  test("an assistant turn with parallel calls and its results form one unit; a late result extends it", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "1" },
      { role: "tool", tool_call_id: "b", content: "2" },
      { role: "assistant", content: null, tool_calls: [call("c")] },
      { role: "user", content: "interjection" },
      { role: "tool", tool_call_id: "c", content: "3" },
      { role: "assistant", content: "done" },
      { role: "tool", tool_call_id: "zz", content: "stray" },
    ];
    expect(turnUnits(messages)).toEqual([[0, 1], [1, 4], [4, 7], [7, 9]]);
  });
});
