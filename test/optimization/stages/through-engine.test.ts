// dedupe_documents, columnar_arrays, tool_prune and history_window through the real engine and its
// gates (docs/optimization.md "Gates"): on a realistic agent request each is applied, none reverted.
import { describe, expect, test } from "bun:test";
import type { ChatMessage, ChatRequest, FunctionTool } from "../../../src/canonical/chat.ts";
import { optimizeRequest, requestTokens, stageContext } from "../../../src/optimization/engine.ts";
import { optimizationOptionsOf } from "../../../src/optimization/options.ts";
import { STAGES } from "../../../src/optimization/stages/index.ts";
import type { Stage } from "../../../src/optimization/types.ts";

const statuses = ["shipped", "delivered", "pending", "cancelled"];
const orders = Array.from({ length: 40 }, (_, i) => ({
  id: `ORD-${20_000 + i * 41}`, sku: `SKU-${(i * 97) % 1000}`, status: statuses[i % 4]!, total: 10 + ((i * 733) % 9000) / 100, placed: `2026-10-${String(1 + (i % 28)).padStart(2, "0")}`,
}));
const manual = Array.from({ length: 25 }, (_, i) => `Section ${i + 1}. Returns for category ${i} are accepted within ${14 + i} days when the item is unused and in its original packaging.`).join("\n");

const tools: FunctionTool[] = ["list_orders", "get_order", "cancel_order", "refund_payment", "send_email", "get_weather", "book_hotel", "translate_text", "run_sql", "track_shipment", "create_ticket", "search_docs"]
  .map((name) => ({ type: "function", function: { name, description: `${name.replace("_", " ")} for the shop's customers`, parameters: { type: "object", properties: { id: { type: "string" } } } } }));

function agentRequest(): ChatRequest {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are the shop's support agent. Answer from the tools and documents." },
    { role: "user", content: manual },
    { role: "user", content: "Which of my orders can still be refunded?" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_list", type: "function", function: { name: "list_orders", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "call_list", content: JSON.stringify({ orders }, null, 2) },
  ];
  for (let r = 0; r < 6; r++) {
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: `call_doc_${r}`, type: "function", function: { name: "search_docs", arguments: `{"q":"returns ${r}"}` } }] });
    messages.push({ role: "tool", tool_call_id: `call_doc_${r}`, content: manual });
    messages.push({ role: "assistant", content: `Checked the returns manual (pass ${r}).` });
  }
  messages.push({ role: "user", content: "Please refund order ORD-20041 and cancel ORD-20082." });
  return { model: "gpt-4o", tools, messages };
}

describe("the four stages through the engine (docs/optimization.md)", () => {
  test("balanced, past the window: deduped, packed, pruned and windowed, every gate passed", () => {
    const req = agentRequest();
    const total = requestTokens(req);
    const options = optimizationOptionsOf({ mode: "balanced", documents: [1] }, undefined, req.messages.length);
    const { request, trace } = optimizeRequest(req, stageContext(req, options, Math.floor(total * 0.25)), STAGES);
    const byName = Object.fromEntries(trace.stages.map((s) => [s.name, s]));
    for (const name of ["dedupe_documents", "columnar_arrays", "tool_prune", "history_window"]) {
      expect({ name, applied: byName[name]?.applied, reason: byName[name]?.reverted_reason }).toEqual({ name, applied: true, reason: undefined });
    }
    expect(trace.final_tokens).toBe(requestTokens(request));
    expect(trace.final_tokens).toBeLessThanOrEqual(total * 0.25 * 0.75);
    expect(request.messages[0]).toBe(req.messages[0]!);
    expect(request.messages.at(-1)).toBe(req.messages.at(-1)!);
    expect(request.tools!.map((t) => t.function.name)).toEqual(expect.arrayContaining(["list_orders", "search_docs", "refund_payment", "cancel_order"]));
  });

  test("safe runs dedupe_documents only of the four; the repeated manual becomes references", () => {
    const req = agentRequest();
    const options = optimizationOptionsOf({ mode: "safe", documents: [1] }, undefined, req.messages.length);
    const { request, trace } = optimizeRequest(req, stageContext(req, options, 1000), STAGES);
    expect(trace.stages.map((s) => s.name)).not.toContain("history_window");
    expect(trace.stages.find((s) => s.name === "dedupe_documents")!.applied).toBe(true);
    const refs = request.messages.filter((m) => typeof m.content === "string" && m.content.startsWith("[Same text as message 2 above"));
    expect(refs).toHaveLength(6);
    expect(request.messages.length).toBe(req.messages.length);
  });
});

describe("dedupe_documents judges small messages itself (Stage.judgesSmall)", () => {
  // RAG chunks of ~60-90 tokens each, under the small-message size that keeps the other stages out.
  const body = "Returns (policy RP-7, rev. 2026-03-01): unused items may be returned within 30 days of delivery. Refunds reach the original payment method within 5 business days; below EUR 500 the return fee of EUR 6.95 is deducted.";
  const refunds = `[source: kb/refunds.md]\n\n${body}`;
  const shipping = "[source: kb/shipping.md]\nStandard shipping within the EU takes 2-4 business days with PostNL or DHL. Express (next business day) costs EUR 12.90 for orders placed before 14:00 CET.";
  const overlap = `[source: kb/refunds.md#2]\n\n${body}\n\nExchanges are handled as a return plus a new order.`;
  const pack = (extra: Record<string, unknown> = {}): { req: ChatRequest; out: ReturnType<typeof optimizeRequest> } => {
    const req: ChatRequest = { model: "gpt-4o", messages: [
      { role: "system", content: "Answer from the documents only." },
      { role: "user", content: refunds }, { role: "user", content: shipping }, { role: "user", content: refunds }, { role: "user", content: overlap },
      { role: "user", content: "Do I pay for returning a EUR 120 order?" },
    ] };
    const options = optimizationOptionsOf({ mode: "safe", documents: [1, 2, 3, 4], ...extra }, undefined, req.messages.length);
    return { req, out: optimizeRequest(req, stageContext(req, options, null), STAGES) };
  };

  test("a repeated small chunk and a repeated passage of one become references; the gates pass", () => {
    const { req, out } = pack();
    for (const m of req.messages) expect(requestTokens({ model: "m", messages: [m] })).toBeLessThan(250);
    const stage = out.trace.stages.find((s) => s.name === "dedupe_documents")!;
    expect({ applied: stage.applied, reason: stage.reverted_reason }).toEqual({ applied: true, reason: undefined });
    expect(out.request.messages[1]).toBe(req.messages[1]!);
    expect(out.request.messages[3]!.content).toBe('[Same text as message 2 above, which begins "[source: kb/refunds.md] Returns (policy RP-7,..."; not repeated]');
    expect(out.request.messages[4]!.content).toBe('[source: kb/refunds.md#2]\n\n[Same passage as in message 2 above, which begins "Returns (policy RP-7, rev. 2026-03-01): unused..."; not repeated]\n\nExchanges are handled as a return plus a new order.');
    expect(out.trace.final_tokens).toBe(requestTokens(out.request));
    expect(out.trace.final_tokens).toBeLessThan(out.trace.original_tokens * 0.85);
    // No other stage touched a small message.
    for (const i of [0, 1, 2, 5]) expect(out.request.messages[i]).toBe(req.messages[i]!);
  });

  test("the stages after it are held to the small messages as it left them: cache_align still applies", () => {
    const req: ChatRequest = { model: "gpt-4o", messages: [
      { role: "system", content: "Answer from the documents only." },
      { role: "user", content: refunds }, { role: "user", content: overlap }, { role: "user", content: "Do I pay for returning a EUR 120 order?" },
    ], tools: [{ type: "function", function: { parameters: { type: "object", properties: { q: { type: "string" } } }, name: "kb_search", description: "Search the help centre" } }] };
    const options = optimizationOptionsOf({ mode: "safe", documents: [1, 2] }, undefined, req.messages.length);
    const { request, trace } = optimizeRequest(req, stageContext(req, options, null), STAGES);
    const byName = Object.fromEntries(trace.stages.map((s) => [s.name, s]));
    for (const name of ["dedupe_documents", "cache_align"]) expect({ name, applied: byName[name]?.applied, reason: byName[name]?.reverted_reason }).toEqual({ name, applied: true, reason: undefined });
    expect(String(request.messages[2]!.content)).toContain("[Same passage as in message 2 above");
    expect(Object.keys(request.tools![0]!.function)).toEqual(["name", "description", "parameters"]);
  });

  test("do_not_compress still holds: a named repeat stays as sent", () => {
    const { req, out } = pack({ do_not_compress: [3, 4] });
    expect(out.request.messages).toEqual(req.messages);
    expect(out.trace.stages.find((s) => s.name === "dedupe_documents")!.applied).toBe(false);
  });

  test("a judgesSmall stage that changes a do_not_compress message is reverted, and a stage without it may not change a small one", () => {
    const req: ChatRequest = { model: "gpt-4o", messages: [{ role: "user", content: refunds }, { role: "user", content: "Short question about the refunds policy?" }] };
    const shorten = (judgesSmall: boolean): Stage => ({
      name: "dedupe_documents", from: "safe", ...(judgesSmall ? { judgesSmall: true as const } : {}),
      run: (r) => ({ ...r, messages: [r.messages[0]!, { role: "user", content: "Short question?" }] }),
    });
    const run = (stage: Stage, extra: Record<string, unknown> = {}) =>
      optimizeRequest(req, stageContext(req, optimizationOptionsOf({ mode: "safe", ...extra }, undefined, 2), null), [stage]).trace.stages[0]!;
    expect(run(shorten(false)).reverted_reason).toBe("preserve");
    expect(run(shorten(true)).applied).toBe(true);
    expect(run(shorten(true), { do_not_compress: ["last_user"] }).reverted_reason).toBe("preserve");
  });
});
