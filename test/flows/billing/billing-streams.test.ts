// Streams are charged for what was produced (docs/billing.md "Charges"): a whole stream by its usage
// chunk, and a stream the client leaves mid-way by the tokens it had received, its hold closed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chargeNano, toNano } from "../../../src/billing/money.ts";
import { requestDetail, sseData } from "../../helpers/flow-helpers.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { addCredits, billedProject, ledgerOf, MODEL, startBillingGw, user, type ScriptedUpstream, type TestGw } from "./billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
const longText = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw({ chunkDelayMs: 10, content: longText })));
afterAll(() => stop());

const streamBody = (content: string) => JSON.stringify({ model: MODEL, messages: user(content), stream: true, max_tokens: 2_000 });
const open = (key: string, content: string, signal?: AbortSignal) => fetch(`${gw.url}/chat/completions`, {
  method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-gw-cache": "off" }, body: streamBody(content), signal,
});

describe("docs/billing.md: streams", () => {
  test("a whole stream: charged cost x 1.10 from its usage chunk", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const lines = await sseData(await open(p.key, "Stream it all."));
    const summary = JSON.parse(lines.at(-2)!) as { gw: { cost: number; request_id: string } };
    const charge = (await ledgerOf(gw, p.id)).find((r) => r.kind === "charge")!;
    expect(charge).toMatchObject({ request_id: summary.gw.request_id, cost: toNano(summary.gw.cost), amount: chargeNano(summary.gw.cost, false) });
    expect(gw.deps.billing.account(p.id).reserved).toBe(0);
  });

  test("the client leaves mid-stream: charged for the tokens produced so far, the hold closed", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, 1);
    const controller = new AbortController();
    const res = await open(p.key, "Start, then I leave.", controller.signal);
    const requestId = res.headers.get("x-gw-request-id")!;
    const reader = res.body!.getReader();
    let received = "";
    while ((received.match(/data: /g) ?? []).length < 5) {
      const { value, done } = await reader.read();
      if (done) break;
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);

    let charge: { amount: number; cost: number; output_tokens: number } | undefined;
    expect(await waitFor(async () => (charge = (await ledgerOf(gw, p.id)).find((r) => r.kind === "charge")) !== undefined)).toBe(true);
    await gw.drain();
    const { body: row } = await requestDetail(gw.url, p.key, requestId);
    expect(row.trace.client_disconnected).toBe(true);
    // What was produced: more than nothing, less than the whole answer (60 words).
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeLessThan(50);
    expect(charge!.output_tokens).toBe(row.output_tokens);
    expect(charge!.cost).toBe(toNano(row.cost));
    expect(charge!.amount).toBe(chargeNano(row.cost, false));
    expect(charge!.amount).toBeGreaterThan(0);
    const account = gw.deps.billing.account(p.id);
    expect(account.reserved).toBe(0);
    expect(account.balance).toBe(1e9 - charge!.amount);
  });
});
