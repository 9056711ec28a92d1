import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../../src/canonical/chat.ts";
import { decodeColumns, packColumns } from "../../../src/optimization/lib/columnar.ts";
import { scanLiteral } from "../../../src/optimization/lib/json-text.ts";
import { columnarArrays } from "../../../src/optimization/stages/columnar-arrays.ts";
import { makeCtx, snapshot } from "./ctx.ts";

const statuses = ["shipped", "delivered", "pending", "cancelled"];
const orders = Array.from({ length: 50 }, (_, i) => ({
  id: `ORD-${10_000 + i * 37}`, customer: `cust_${(i * 7919) % 1000}`, status: statuses[i % 4]!,
  total: Math.round(((i * 13.37) % 500) * 100) / 100, paid: i % 3 !== 0, coupon: i % 5 === 0 ? "WINTER10" : null,
}));

function toolRequest(result: unknown, pretty = true): ChatRequest {
  return {
    model: "gpt-4o",
    messages: [
      { role: "user", content: "Which of my orders are still pending, and what do they total?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "list_orders", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: JSON.stringify(result, null, pretty ? 2 : 0) },
    ],
  };
}

describe("columnar_arrays (docs/optimization.md)", () => {
  test("a 50-row tool result is packed as columns and rows that decode to the original rows", () => {
    const req = toolRequest({ page: 1, orders, next: null });
    const before = snapshot(req);
    const ctx = makeCtx();
    const out = columnarArrays.run(req, ctx)!;
    expect(req).toEqual(before);
    expect(out.messages[0]).toBe(req.messages[0]!);
    const packed = JSON.parse(String(out.messages[2]!.content));
    expect(Object.keys(packed)).toEqual(["page", "orders", "next"]);
    expect(packed.orders.columns).toEqual(["id", "customer", "status", "total", "paid", "coupon"]);
    expect(packed.orders.rows[0]).toEqual(["ORD-10000", "cust_0", "shipped", 0, false, "WINTER10"]);
    expect(JSON.stringify(decodeColumns(packed.orders))).toBe(JSON.stringify(orders));
    expect(columnarArrays.verify!(req, out, ctx)).toBe(true);
    // Against the minified original too, so the saving is the packing's own.
    const minified = toolRequest({ page: 1, orders, next: null }, false);
    expect(ctx.countTokens(columnarArrays.run(minified, ctx)!)).toBeLessThan(ctx.countTokens(minified) * 0.7);
  });

  test("nested: only the homogeneous arrays pack; mixed keys, key orders, nested values and short arrays stay", () => {
    const lines = orders.slice(0, 12).map(({ id, total }) => ({ id, total }));
    const value = {
      report: { lines, tags: ["a", "b"] },
      mixed: [...orders.slice(0, 10), { id: "X", note: "other keys" }],
      reordered: orders.slice(0, 11).map((o, i) => (i === 5 ? { customer: o.customer, id: o.id, status: o.status, total: o.total, paid: o.paid, coupon: o.coupon } : o)),
      nested: orders.slice(0, 10).map((o) => ({ id: o.id, meta: { total: o.total } })),
      short: orders.slice(0, 9),
      matrix: [orders.slice(0, 10)],
    };
    const { value: out, packed } = packColumns(value);
    expect(packed).toBe(2);
    const o = out as Record<string, unknown> & { report: { lines: unknown; tags: unknown }; matrix: unknown[] };
    expect(o.report.lines).toEqual({ columns: ["id", "total"], rows: lines.map((l) => [l.id, l.total]) });
    expect(o.report.tags).toEqual(["a", "b"]);
    for (const k of ["mixed", "reordered", "nested", "short"] as const) expect(o[k]).toEqual(value[k]);
    expect((o.matrix[0] as { columns: string[] }).columns).toEqual(Object.keys(orders[0]!));
  });

  test("texts that are not JSON, numbers a double cannot hold, and untouchable messages are left alone", () => {
    const ctx = makeCtx();
    expect(columnarArrays.run(toolRequest({ orders: orders.slice(0, 9) }), ctx)).toBeNull();
    const prose: ChatRequest = { model: "m", messages: [{ role: "user", content: `Here are the orders: ${JSON.stringify(orders)}` }] };
    expect(columnarArrays.run(prose, ctx)).toBeNull();
    // A document on lines of its own inside prose (json_minify's spans) packs; the prose stays.
    const embedded: ChatRequest = { model: "m", messages: [{ role: "user", content: `Orders:\n${JSON.stringify(orders, null, 2)}\nWhich are open?` }] };
    const packed = String(columnarArrays.run(embedded, ctx)!.messages[0]!.content);
    expect(packed.startsWith(`Orders:\n{"columns":["id",`)).toBe(true);
    expect(packed.endsWith(`]]}\nWhich are open?`)).toBe(true);
    // Literals a double cannot write back as they were: JSON.parse would change these facts.
    const bigIds = toolRequest({ orders });
    bigIds.messages[2]!.content = String(bigIds.messages[2]!.content).replace(`"ORD-10037"`, "12345678901234567891");
    expect(columnarArrays.run(bigIds, ctx)).toBeNull();
    const trailingZero = toolRequest({ orders });
    trailingZero.messages[2]!.content = String(trailingZero.messages[2]!.content).replace(`"total": 13.37`, `"total": 13.370`);
    expect(String(trailingZero.messages[2]!.content)).toContain("13.370");
    expect(columnarArrays.run(trailingZero, ctx)).toBeNull();
    const exact = (text: string): boolean => scanLiteral(text).exact;
    expect(exact(`{"id":"12345678901234567890","n":123456789012345}`)).toBe(true);
    expect(exact(`{"n":1234567890.12345678}`)).toBe(false);
    expect(exact(`{"price":89.90}`)).toBe(false);
    expect(exact(`[1e3]`)).toBe(false);
    expect(exact(`[-0.5, 1.25e-7, "1.0", 0]`)).toBe(true);
    expect(scanLiteral(`{"a": {"b:": "c", "d" : 1}, "e\\"": [2]}`).members).toBe(4);
    const tricky = { 'a\\': { '"b":': 'c\\"', d: ['\\\\', { e: '"' }] }, f: 'x":"y', '': null };
    for (const indent of [0, 2]) expect(scanLiteral(JSON.stringify(tricky, null, indent)).members).toBe(6);
    // A repeated key: JSON.parse keeps the last value, so packing would drop a fact ("pending").
    const events = Array.from({ length: 12 }, (_, i) => `{"id": "evt_${i}", "status": "pending", "status": "succeeded"}`);
    const dup: ChatRequest = { model: "m", messages: [{ role: "tool", tool_call_id: "c", content: `[\n${events.join(",\n")}\n]` }] };
    expect(columnarArrays.run(dup, ctx)).toBeNull();
    expect(columnarArrays.run(toolRequest({ orders }), makeCtx({}, { untouchable: new Set([2]) }))).toBeNull();
  });

  test("a user text part that is JSON packs; verify refuses a changed value", () => {
    const req: ChatRequest = {
      model: "m",
      messages: [{ role: "user", content: [{ type: "text", text: "Summarise these rows." }, { type: "text", text: JSON.stringify(orders, null, 1) }] }],
    };
    const ctx = makeCtx();
    const out = columnarArrays.run(req, ctx)!;
    const parts = out.messages[0]!.content as { type: string; text: string }[];
    expect(parts[0]).toBe((req.messages[0]!.content as { type: string; text: string }[])[0]!);
    expect(JSON.parse(parts[1]!.text).columns).toEqual(Object.keys(orders[0]!));
    expect(columnarArrays.verify!(req, out, ctx)).toBe(true);
    const tampered = { ...out, messages: [{ ...out.messages[0]!, content: [parts[0]!, { type: "text", text: parts[1]!.text.replace("ORD-10037", "ORD-10038") }] }] };
    expect(columnarArrays.verify!(req, tampered, ctx)).toBe(false);
    // Same values, keys decoded in another order: refused too (key order is part of the original).
    const reordered = JSON.parse(parts[1]!.text) as { columns: string[]; rows: unknown[][] };
    const swap = <T>(xs: T[]): T[] => [xs[1]!, xs[0]!, ...xs.slice(2)];
    const swapped = JSON.stringify({ columns: swap(reordered.columns), rows: reordered.rows.map(swap) });
    expect(columnarArrays.verify!(req, { ...out, messages: [{ ...out.messages[0]!, content: [parts[0]!, { type: "text", text: swapped }] }] }, ctx)).toBe(false);
  });
});
