// dedupe_documents, tool_prune and history_window through a real gw (docs/optimization.md "Stages"):
// an agent conversation too long for the model's window reaches the scripted upstream windowed, its
// tools pruned and its repeated tool output referenced, with every tool call beside its results; a
// RAG pack's small repeated chunks reach it as references in safe mode.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChatMessage, ChatRequest, FunctionTool } from "../../../src/canonical/chat.ts";
import { requestTokens } from "../../../src/optimization/engine.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { startWindowGw } from "../../helpers/window-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";

const tools: FunctionTool[] = ["search_logs", "get_deploys", "get_weather", "book_hotel", "translate_text", "send_email", "create_ticket", "run_sql", "list_invoices", "track_shipment"]
  .map((name) => ({ type: "function", function: { name, description: `${name.replace("_", " ")} (ops toolkit)`, parameters: { type: "object", properties: { q: { type: "string" } } } } }));
const logs = (r: number): string =>
  Array.from({ length: 14 }, (_, k) => `2026-11-14T0${k % 10}:2${k % 6}:00Z host-${r} GET /api/checkout/${r * 100 + k} 200 ${40 + ((r * 7 + k) % 60)}ms`).join("\n");

function conversation(): ChatRequest {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are an SRE assistant. Cite request ids." },
    { role: "user", content: "Why did checkout latency rise on 2026-11-14?" },
  ];
  for (let r = 0; r < 14; r++) {
    const calls = [{ id: `c${r}a`, type: "function" as const, function: { name: "search_logs", arguments: `{"q":"host-${r}"}` } }];
    if (r % 3 === 0) calls.push({ id: `c${r}b`, type: "function", function: { name: "get_deploys", arguments: `{"q":"host-${r}"}` } });
    messages.push({ role: "assistant", content: null, tool_calls: calls });
    for (const c of calls) messages.push({ role: "tool", tool_call_id: c.id, content: c.id.endsWith("b") ? logs(99) : logs(r) });
  }
  messages.push({ role: "user", content: "Which deploys line up with the slow search logs?" });
  return { model: "openai/gpt-4o-mini", messages, tools, max_tokens: 100 };
}

const WINDOW = Math.floor(requestTokens(conversation()) / 2);
let upstream: ScriptedUpstream;
let gw: TestGw;
let live: string;
let stop: () => Promise<void>;

beforeAll(async () => ({ gw, upstream, live, stop } = await startWindowGw(WINDOW)));
afterAll(() => stop());

describe("the stages through gw (docs/optimization.md)", () => {
  test("too long as sent; balanced sends it windowed, pruned and de-duplicated, with no orphaned call", async () => {
    const off = await post(`${gw.url}/chat/completions`, live, conversation());
    expect(off.status).toBe(503);
    expect(upstream.callCount()).toBe(0);

    const res = await post(`${gw.url}/chat/completions`, live, { ...conversation(), optimization: { mode: "balanced" } });
    expect(res.status).toBe(200);
    const sent = upstream.calls[0]!.body as { messages: ChatMessage[]; tools: FunctionTool[] };
    const original = conversation().messages;
    expect(sent.messages.slice(0, 2)).toEqual(original.slice(0, 2));
    expect(sent.messages.at(-1)).toEqual(original.at(-1)!);
    // Round 0 holds the first get_deploys output, which the later repeats refer to: it stays, whole.
    expect(sent.messages.slice(2, 5)).toEqual(original.slice(2, 5));
    expect(sent.messages[5]).toEqual({ role: "user", content: expect.stringMatching(/^\[\d+ earlier messages of this conversation were omitted here/) });
    // Every call is followed by exactly its results; every result follows its call.
    for (let i = 0; i < sent.messages.length; i++) {
      const m = sent.messages[i]!;
      if (m.role === "tool") throw new Error(`orphaned result ${m.tool_call_id} at ${i}`);
      const ids = (m.tool_calls ?? []).map((c) => c.id);
      expect(sent.messages.slice(i + 1, i + 1 + ids.length).map((r) => r.tool_call_id)).toEqual(ids);
      i += ids.length;
    }
    // Each later get_deploys result repeats the first one: a reference to it, by call id.
    const deploys = sent.messages.filter((m) => m.role === "tool" && m.tool_call_id?.endsWith("b"));
    expect(deploys.length).toBeGreaterThan(1);
    expect(deploys[0]!.content).toBe(logs(99));
    for (const d of deploys.slice(1)) expect(d.content).toBe(`[Same output as tool call ${deploys[0]!.tool_call_id} above; not repeated]`);
    expect(sent.tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(["search_logs", "get_deploys"]));
    expect(sent.tools.length).toBeLessThan(tools.length);
  });

  test("safe: a RAG pack's repeated chunks, each under the small-message size, reach the upstream as references", async () => {
    const refunds = "[source: kb/refunds.md]\nReturns (policy RP-7, rev. 2026-03-01): unused items may be returned within 30 days of delivery. Refunds reach the original payment method within 5 business days; below EUR 500 the return fee of EUR 6.95 is deducted.";
    const shipping = "[source: kb/shipping.md]\nStandard shipping within the EU takes 2-4 business days with PostNL or DHL. Express (next business day) costs EUR 12.90 for orders placed before 14:00 CET.";
    const messages: ChatMessage[] = [
      { role: "system", content: "Answer from the documents only." },
      { role: "user", content: refunds }, { role: "user", content: shipping }, { role: "user", content: refunds }, { role: "user", content: shipping },
      { role: "user", content: "Do I pay for returning a EUR 120 order?" },
    ];
    for (const m of messages) expect(requestTokens({ model: "m", messages: [m] })).toBeLessThan(250);
    const res = await post(`${gw.url}/chat/completions`, live, { model: "openai/gpt-4o-mini", messages, optimization: { mode: "safe", documents: [1, 2, 3, 4] } });
    expect(res.status).toBe(200);
    const sent = (upstream.calls.at(-1)!.body as { messages: ChatMessage[] }).messages;
    expect(sent.slice(0, 3)).toEqual(messages.slice(0, 3));
    expect(sent[3]).toEqual({ role: "user", content: '[Same text as message 2 above, which begins "[source: kb/refunds.md] Returns (policy RP-7,..."; not repeated]' });
    // The shipping chunk is under 200 characters: its repeat stays, as a reference would save little.
    expect(sent.slice(4)).toEqual(messages.slice(4));
  });
});
