// Issue 15 item 7 (docs/security.md "Money"): a stream is billed for what the provider produced,
// never past the request's bound; a stream that fails before any content is not billed; a client
// that leaves is logged 499 and charged only for what was produced up to then.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestDetail } from "../helpers/flow-helpers.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { addCredits, billedProject, ledgerOf, MODEL, startBillingGw, user, type ScriptedUpstream, type TestGw } from "../flows/billing/billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
const longText = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw({ chunkDelayMs: 5, content: longText })));
afterAll(() => stop());

const open = (key: string, body: Record<string, unknown>, signal?: AbortSignal) => fetch(`${gw.url}/chat/completions`, {
  method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-gw-cache": "off" },
  body: JSON.stringify({ model: MODEL, stream: true, ...body }), signal,
});

/** An SSE answer of `text` in 1 KB pieces and no usage chunk: gw has to estimate. */
function sseWithoutUsage(text: string): string {
  const frames: string[] = [];
  for (let i = 0; i < text.length; i += 1024) {
    frames.push(JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: text.slice(i, i + 1024) }, finish_reason: null }] }));
  }
  frames.push(JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
  return frames.map((f) => `data: ${f}\n\n`).join("") + "data: [DONE]\n\n";
}

describe("issue 15 item 7: honest outcomes in billing", () => {
  test("a stream that fails before any content is not billed: its hold is released", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    upstream.script({ cutAfterChunks: 1 });
    const res = await open(p.key, { messages: user("Fail before a word."), max_tokens: 500 });
    const text = await res.text();
    expect(text).toContain('"error"');
    expect(text).not.toContain("word0");
    const rows = await ledgerOf(gw, p.id);
    expect(rows.filter((r) => r.kind === "charge")).toHaveLength(0);
    expect(rows.filter((r) => r.kind === "release")).toHaveLength(1);
    const account = gw.deps.billing.account(p.id);
    expect(account.reserved).toBe(0);
    expect(account.balance).toBe(1e9);
  });

  test("a stream that fails after content is billed for what was produced", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    upstream.script({ cutAfterChunks: 20 });
    const res = await open(p.key, { messages: user("Fail half-way."), max_tokens: 2_000 });
    expect(await res.text()).toContain("word1");
    const charge = (await ledgerOf(gw, p.id)).find((r) => r.kind === "charge");
    expect(charge?.output_tokens).toBeGreaterThan(0);
    expect(charge!.amount).toBeGreaterThan(0);
    expect(gw.deps.billing.account(p.id).balance).toBe(1e9 - charge!.amount);
  });

  test("an estimate never passes the request's bound: 600 KB of text under max_tokens 100 is billed as 100 tokens, flagged", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    upstream.script({ body: sseWithoutUsage("tide ".repeat(120_000)), headers: { "content-type": "text/event-stream" } });
    const res = await open(p.key, { messages: user("Go on and on."), max_tokens: 100 });
    const requestId = res.headers.get("x-gw-request-id")!;
    await res.text();
    const charge = (await ledgerOf(gw, p.id)).find((r) => r.kind === "charge")!;
    expect(charge.output_tokens).toBe(100);
    const hold = (await ledgerOf(gw, p.id)).find((r) => r.kind === "hold")!;
    expect(charge.amount).toBeLessThanOrEqual(hold.amount);
    await gw.drain();
    const { body } = await requestDetail(gw.url, p.key, requestId);
    expect(body.trace.usage_estimated).toBe(true);
    expect(((body.trace as { billing?: { anomaly?: string[] } }).billing?.anomaly ?? []).join(" ")).toContain("output tokens");
  });

  test("a client that leaves is logged 499 and charged only for what was produced, within its hold", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const controller = new AbortController();
    const res = await open(p.key, { messages: user("Start, then I stop reading.") }, controller.signal);
    const requestId = res.headers.get("x-gw-request-id")!;
    const reader = res.body!.getReader();
    let received = "";
    while ((received.match(/data: /g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);
    let charge: { amount: number; output_tokens: number } | undefined;
    expect(await waitFor(async () => (charge = (await ledgerOf(gw, p.id)).find((r) => r.kind === "charge")) !== undefined)).toBe(true);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, p.key, requestId);
    expect(row.status).toBe(499);
    expect(row.trace.client_disconnected).toBe(true);
    // Less than the whole 400-word answer; the hold (the model's maximum output) was not charged.
    expect(charge!.output_tokens).toBeLessThan(400);
    const hold = (await ledgerOf(gw, p.id)).find((r) => r.kind === "hold")!;
    expect(charge!.amount).toBeLessThan(hold.amount / 10);
    expect(gw.deps.billing.account(p.id).reserved).toBe(0);
  });
});
