import { describe, expect, test } from "bun:test";
import type { ChatRequest, FunctionTool } from "../../../src/canonical/chat.ts";
import { contentWords } from "../../../src/optimization/lib/words.ts";
import { MIN_KEPT, planPrune, toolPrune } from "../../../src/optimization/stages/tool-prune.ts";
import { makeCtx, snapshot } from "./ctx.ts";

const tool = (name: string, description: string): FunctionTool => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties: { query: { type: "string", description: `Input for ${name}` } }, required: ["query"] } },
});

const TOOLS: FunctionTool[] = [
  tool("get_weather", "Current weather and forecast for a city"),
  tool("search_flights", "Search flights between two airports on a date"),
  tool("book_hotel", "Book a hotel room in a city for given nights"),
  tool("get_order", "Look up an order by its id: status, items, totals"),
  tool("cancel_order", "Cancel an order that has not shipped yet"),
  tool("refund_payment", "Refund a captured payment, fully or partially"),
  tool("send_email", "Send an e-mail to a customer"),
  tool("create_calendar_event", "Create an event in the user's calendar"),
  tool("translate_text", "Translate text between languages"),
  tool("run_sql", "Run a read-only SQL query on the analytics warehouse"),
  tool("listInvoices", "List invoices of a customer account"),
  tool("track_shipment", "Track a shipment by carrier tracking number"),
];

function agentRequest(last: string, over: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: "gpt-4o",
    tools: TOOLS,
    messages: [
      { role: "system", content: "You are the support agent for a web shop." },
      { role: "user", content: "What's the weather in Lisbon?" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{\"query\":\"Lisbon\"}" } }] },
      { role: "tool", tool_call_id: "c1", content: "{\"temp_c\":19,\"sky\":\"clear\"}" },
      { role: "assistant", content: "19 °C and clear." },
      { role: "user", content: last },
    ],
    ...over,
  };
}

const names = (req: ChatRequest): string[] => (req.tools ?? []).map((t) => t.function.name);

describe("tool_prune (docs/optimization.md)", () => {
  test("keeps the used tools and the most relevant others, in their original order", () => {
    const req = agentRequest("My order ORD-7731 arrived broken: can you cancel the order or refund the payment, and track the shipment of the replacement?");
    const before = snapshot(req);
    const ctx = makeCtx();
    const out = toolPrune.run(req, ctx)!;
    expect(req).toEqual(before);
    expect(out.messages).toBe(req.messages);
    const kept = names(out);
    expect(kept).toHaveLength(MIN_KEPT);
    expect(kept).toEqual(expect.arrayContaining(["get_weather", "get_order", "cancel_order", "refund_payment", "track_shipment"]));
    expect(kept).toEqual(TOOLS.map((t) => t.function.name).filter((n) => kept.includes(n)));
    expect(kept).not.toContain("translate_text");
    expect(toolPrune.verify!(req, out, ctx)).toBe(true);
    expect(ctx.countTokens(out)).toBeLessThan(ctx.countTokens(req));
  });

  test("camelCase and snake_case names match the user's words", () => {
    expect([...contentWords("listInvoices")]).toEqual(["list", "invoice"]);
    expect([...contentWords("create_calendar_event")]).toEqual(["create", "calendar", "event"]);
    const out = toolPrune.run(agentRequest("Please list the invoices for account 4410"), makeCtx())!;
    expect(names(out)).toContain("listInvoices");
  });

  test("used tools always stay, with a few relevant others, even when they are more than the minimum", () => {
    const calls = TOOLS.slice(0, 9).map((t, i) => ({ id: `u${i}`, type: "function" as const, function: { name: t.function.name, arguments: "{}" } }));
    const req = agentRequest("Now run an SQL query for the monthly invoices", {
      messages: [
        { role: "user", content: "Do everything." },
        { role: "assistant", content: null, tool_calls: calls },
        ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: "ok" })),
        { role: "user", content: "Now run an SQL query for the monthly invoices" },
      ],
    });
    const out = toolPrune.run(req, makeCtx())!;
    expect(names(out)).toEqual([...TOOLS.slice(0, 10), TOOLS[10]!].map((t) => t.function.name));
  });

  test("never when tool_choice names a tool or is required; never below the minimum; nothing without a user turn", () => {
    const last = "Cancel order ORD-7731";
    expect(toolPrune.run(agentRequest(last, { tool_choice: { type: "function", function: { name: "cancel_order" } } }), makeCtx())).toBeNull();
    expect(toolPrune.run(agentRequest(last, { tool_choice: "required" }), makeCtx())).toBeNull();
    expect(names(toolPrune.run(agentRequest(last, { tool_choice: "auto" }), makeCtx())!)).toHaveLength(MIN_KEPT);
    expect(toolPrune.run(agentRequest(last, { tools: TOOLS.slice(0, MIN_KEPT) }), makeCtx())).toBeNull();
    expect(planPrune(agentRequest("ok ?"))).toBeNull();
  });

  test("verify refuses a dropped used tool, reordering and a changed message list", () => {
    const req = agentRequest("Cancel order ORD-7731 and refund it");
    const ctx = makeCtx();
    const out = toolPrune.run(req, ctx)!;
    const tools = out.tools!;
    expect(toolPrune.verify!(req, { ...out, tools: [...tools.slice(1), TOOLS[11]!] }, ctx)).toBe(false);
    expect(toolPrune.verify!(req, { ...out, tools: [...tools].reverse() }, ctx)).toBe(false);
    expect(toolPrune.verify!(req, { ...out, messages: req.messages.slice(1) }, ctx)).toBe(false);
    expect(toolPrune.verify!(req, { ...out, tools: tools.slice(0, 3) }, ctx)).toBe(false);
  });
});
