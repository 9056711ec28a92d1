// The done-when line of issue 18 end to end: 200 concurrent requests crossing 50% and 80% of a
// budget deliver exactly one signed budget.threshold_reached for each to the project's endpoint.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { answerWith, billedProject, chat, usd, user, worstChargeNano } from "../../flows/billing/billing-helpers.ts";
import { admin, ok } from "../../helpers/admin-api.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";
import { ManualClock, NOON, startEventsGw, type TestGw } from "./events-helpers.ts";

const clock = new ManualClock(NOON);
let gw: TestGw;
let upstream: ScriptedUpstream;
let receiver: WebhookReceiver;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ gw, upstream, stop } = await startEventsGw(clock, { GW_WEBHOOK_ALLOW_LOOPBACK: "1" }));
  receiver = startWebhookReceiver({ now: () => clock.now() });
});
afterAll(async () => {
  await stop();
  await receiver.stop();
});

test("200 concurrent requests crossing 80% of a budget send exactly one budget.threshold_reached for it", async () => {
  const messages = user("Summarise the quarterly numbers for the board in three short bullet points.");
  const worst = worstChargeNano(messages, 300);
  const p = await billedProject(gw, { policy: { budgets: { monthly: usd(Math.ceil((200 * worst) / 0.9)) } } });
  const endpoint = await ok(await admin(gw, "POST", `/projects/${p.id}/webhooks`, { url: receiver.url, events: ["budget.threshold_reached"] }), 201);
  upstream.script({ body: answerWith(boundMessageTokens(messages), 300), delayMs: 50 }, 200);
  const results = await Promise.all(Array.from({ length: 200 }, () => chat(gw, p.key, { messages, max_tokens: 300 })));
  expect(results.every((r) => r.status === 200)).toBe(true);
  await gw.deps.webhooks.runDue();
  const got = await receiver.waitFor(2);
  // Nothing more comes: another pass finds nothing due.
  await gw.deps.webhooks.runDue();
  expect(receiver.received).toHaveLength(2);
  const envelopes = got.map((r) => receiver.verify(String(endpoint.secret), r) as { type: string; data: { percent: number; period: string } });
  // Both are due at once and sent side by side: their order of arrival is not fixed.
  expect(envelopes.map((e) => [e.type, e.data.period, e.data.percent]).sort((x, y) => Number(x[2]) - Number(y[2]))).toEqual([
    ["budget.threshold_reached", "monthly", 50],
    ["budget.threshold_reached", "monthly", 80],
  ]);
});
