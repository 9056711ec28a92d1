import { describe, expect, test } from "bun:test";
import type { ChatMessage, ChatRequest } from "../../../src/canonical/chat.ts";
import { dedupeDocuments, planDedupe } from "../../../src/optimization/stages/dedupe-documents.ts";
import { makeCtx, snapshot } from "./ctx.ts";

const policy = "Refund policy (rev. 2026-03-14): orders shipped to the EU may be returned within 30 days of delivery. "
  + "Items marked FINAL-SALE, gift cards (SKU GC-100, GC-250) and opened software are excluded. Refunds go to the original "
  + "payment method within 5-7 business days; contact returns@example.com with the order id.";
const shipping = "Shipping (rev. 2026-02-01): standard delivery takes 3-5 business days within the EU, express 1-2. "
  + "Orders over EUR 49.00 ship free. Tracking numbers are e-mailed from dispatch@example.com once the parcel leaves Rotterdam.";
const lookup = JSON.stringify({ order: "ORD-88213", status: "delivered", delivered_at: "2026-11-02", items: [{ sku: "KB-7", qty: 1, price: 89.9 }, { sku: "GC-100", qty: 2, price: 100 }] }, null, 2);

function ragRequest(): ChatRequest {
  return {
    model: "gpt-4o",
    messages: [
      { role: "system", content: "Answer from the documents only." },
      { role: "user", content: policy },
      { role: "user", content: shipping },
      { role: "user", content: policy },
      { role: "user", content: "Can I return the gift card from order ORD-88213?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "get_order", arguments: "{\"id\":\"ORD-88213\"}" } }] },
      { role: "tool", tool_call_id: "call_a", content: lookup },
      { role: "assistant", content: null, tool_calls: [{ id: "call_b", type: "function", function: { name: "get_order", arguments: "{\"id\":\"ORD-88213\"}" } }] },
      { role: "tool", tool_call_id: "call_b", content: lookup },
    ],
  };
}

describe("dedupe_documents (docs/optimization.md)", () => {
  test("a repeated document and a repeated tool output become references to their first copies", () => {
    const req = ragRequest();
    const before = snapshot(req);
    const ctx = makeCtx({ documents: [1, 2, 3] });
    const out = dedupeDocuments.run(req, ctx)!;
    expect(req).toEqual(before);
    expect(out.messages[1]).toBe(req.messages[1]!);
    expect(out.messages[3]!.content).toBe(`[Same text as message 2 above, which begins "Refund policy (rev. 2026-03-14): orders shipped..."; not repeated]`);
    expect(out.messages[8]).toEqual({ role: "tool", tool_call_id: "call_b", content: "[Same output as tool call call_a above; not repeated]" });
    expect(out.messages.filter((m, i) => m !== req.messages[i]).length).toBe(2);
    expect(dedupeDocuments.verify!(req, out, ctx)).toBe(true);
    expect(ctx.countTokens(out)).toBeLessThan(ctx.countTokens(req) * 0.8);
  });

  test("messages outside documents are never deduped, and untouchable repeats stay", () => {
    const req = ragRequest();
    expect([...planDedupe(req, makeCtx()).whole.entries()]).toEqual([[8, 6]]);
    expect([...planDedupe(req, makeCtx({ documents: [1, 3] }, { untouchable: new Set([3, 8]) })).whole.entries()]).toEqual([]);
    // The first copy may be untouchable: it stays as it is, and the repeat still refers to it.
    expect([...planDedupe(req, makeCtx({ documents: [1, 3] }, { untouchable: new Set([1]) })).whole.entries()]).toEqual([[3, 1], [8, 6]]);
  });

  test("near duplicates and short texts stay; nothing to do is null", () => {
    const req = ragRequest();
    req.messages[3] = { role: "user", content: `${policy} ` };
    req.messages[8] = { role: "tool", tool_call_id: "call_b", content: lookup.replace("89.9", "89.90") };
    expect(dedupeDocuments.run(req, makeCtx({ documents: [1, 2, 3] }))).toBeNull();
    const short: ChatRequest = { model: "m", messages: [{ role: "user", content: "ok" }, { role: "user", content: "ok" }] };
    expect(dedupeDocuments.run(short, makeCtx({ documents: [0, 1] }))).toBeNull();
  });

  test("verify refuses a reference to a copy that differs, or any other change", () => {
    const req = ragRequest();
    const ctx = makeCtx({ documents: [1, 2, 3] });
    const out = dedupeDocuments.run(req, ctx)!;
    const edited = { ...out, messages: out.messages.map((m, i) => (i === 1 ? { ...m, content: shipping } : m)) };
    expect(dedupeDocuments.verify!(req, edited, ctx)).toBe(false);
    const other = { ...out, messages: out.messages.map((m, i) => (i === 4 ? { ...m, content: "Can I return it?" } : m)) };
    expect(dedupeDocuments.verify!(req, other, ctx)).toBe(false);
    expect(dedupeDocuments.verify!(req, { ...out, messages: out.messages.slice(1) }, ctx)).toBe(false);
  });

  test("a passage repeated in another document or earlier in the same one becomes a reference; the rest stays", () => {
    const intro = "[source: kb/returns-2026.md]";
    const changed = policy.replace("30 days", "14 days");
    const req: ChatRequest = {
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Answer from the documents only." },
        { role: "user", content: `${intro}\n\n${policy}\n\n${shipping}` },
        { role: "user", content: `[source: kb/returns-2025.md]\n\n${changed}\n\n${shipping}\n\n${changed}` },
        { role: "user", content: "How long do I have to return an item?" },
      ],
    };
    const ctx = makeCtx({ documents: [1, 2] });
    const out = dedupeDocuments.run(req, ctx)!;
    expect(out.messages[1]).toBe(req.messages[1]!);
    expect(out.messages[2]!.content).toBe([
      "[source: kb/returns-2025.md]", changed,
      `[Same passage as in message 2 above, which begins "Shipping (rev. 2026-02-01): standard delivery..."; not repeated]`,
      `[Same passage as earlier in this text, which begins "Refund policy (rev. 2026-03-14): orders shipped..."; not repeated]`,
    ].join("\n\n"));
    expect(dedupeDocuments.verify!(req, out, ctx)).toBe(true);
    // The older revision (14 days) stays beside the current one (30 days): near duplicates never merge.
    expect(String(out.messages[2]!.content)).toContain("within 14 days");
    const forged = { ...out, messages: out.messages.map((m, i) => (i === 1 ? { ...m, content: String(m.content).replace("3-5", "3-6") } : m)) };
    expect(dedupeDocuments.verify!(req, forged, ctx)).toBe(false);
  });

  test("a document sent as text parts repeats when its parts do; parts with other keys or an image never do", () => {
    const parts = (source: string, text: string, extra: Record<string, unknown> = {}): ChatMessage =>
      ({ role: "user", content: [{ type: "text", text: `[source: ${source}]` }, { type: "text", text, ...extra }] });
    const req: ChatRequest = { model: "m", messages: [
      { role: "developer", content: "Answer from the documents only." },
      parts("kb/refunds.md", policy), parts("kb/shipping.md", shipping), parts("kb/refunds.md", policy), parts("kb/refunds.md", policy, { cache_control: { type: "ephemeral" } }),
      parts("kb/shipping.md", shipping.replace("3-5", "3-6")), { role: "user", content: "Can I return a gift card?" },
    ] };
    const before = snapshot(req);
    const ctx = makeCtx({ documents: [1, 2, 3, 4, 5] });
    const out = dedupeDocuments.run(req, ctx)!;
    expect(req).toEqual(before);
    expect(out.messages[3]!.content).toBe(`[Same text as message 2 above, which begins "[source: kb/refunds.md] Refund policy (rev...."; not repeated]`);
    expect(out.messages.filter((m, i) => m !== req.messages[i]).length).toBe(1);
    expect(dedupeDocuments.verify!(req, out, ctx)).toBe(true);
    const edited = { ...out, messages: out.messages.map((m, i) => (i === 1 ? parts("kb/refunds.md", policy.replace("30 days", "31 days")) : m)) };
    expect(dedupeDocuments.verify!(req, edited, ctx)).toBe(false);
    const image: ChatMessage = { role: "user", content: [{ type: "image_url", image_url: { url: "https://x.example/a.png" } }, { type: "text", text: policy }] };
    expect(dedupeDocuments.run({ model: "m", messages: [image, image] }, makeCtx({ documents: [0, 1] }))).toBeNull();
  });

  test("fenced code is never cut into passages, and the first copy of a whole repeat stays whole", () => {
    const code = "```python\n" + "x = 1\n".repeat(60) + "```";
    const fenced: ChatRequest = { model: "m", messages: [{ role: "user", content: `${policy}\n\n${code}` }, { role: "user", content: `${code}\n\n${shipping}` }] };
    expect(dedupeDocuments.run(fenced, makeCtx({ documents: [0, 1] }))).toBeNull();
    const twice = `${policy}\n\n${policy}`;
    const req: ChatRequest = { model: "m", messages: [{ role: "user", content: twice }, { role: "user", content: twice }] };
    const plan = planDedupe(req, makeCtx({ documents: [0, 1] }));
    expect([...plan.whole.entries()]).toEqual([[1, 0]]);
    expect(plan.passages.size).toBe(0);
  });
});
