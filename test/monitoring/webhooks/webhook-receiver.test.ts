// The scripted receiver other webhook tests rely on: it records, answers from its script, and its
// verify accepts gw's signatures and refuses a changed body or a stale timestamp.
import { afterEach, describe, expect, test } from "bun:test";
import { newWebhookSecret, signatureHeaders } from "../../../src/monitoring/webhooks/signing.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";

let receiver: WebhookReceiver | null = null;
afterEach(async () => {
  await receiver?.stop();
  receiver = null;
});

describe("webhook receiver", () => {
  test("answers from its queue, then its function, then 200, and records raw bodies", async () => {
    const r = (receiver = startWebhookReceiver({ replies: [{ status: 500, body: "no" }] }));
    r.reply({ status: 410 });
    r.respond = (req) => (req.body === "x" ? { status: 418 } : undefined);
    const statuses: number[] = [];
    for (const body of ["a", "b", "x", "c"]) statuses.push((await fetch(r.url, { method: "POST", body })).status);
    expect(statuses).toEqual([500, 410, 418, 200]);
    const got = await r.waitFor(4);
    expect(got.map((g) => g.body)).toEqual(["a", "b", "x", "c"]);
    expect(got[0]?.path).toBe("/hook");
  });

  test("verify accepts a signed delivery and refuses a one-byte change or a stale timestamp", async () => {
    const r = (receiver = startWebhookReceiver());
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: "evt_1", type: "test.ping" });
    const ts = Math.floor(Date.now() / 1000);
    await fetch(r.url, { method: "POST", body, headers: { ...signatureHeaders([secret], "evt_1", ts, body) } });
    await fetch(r.url, { method: "POST", body: body.replace("ping", "pinh"), headers: { ...signatureHeaders([secret], "evt_1", ts, body) } });
    const [ok, changed] = await r.waitFor(2);
    expect(r.verify(secret, ok)).toEqual(JSON.parse(body));
    expect(() => r.verify(secret, changed)).toThrow("No matching signature");
    expect(() => r.verify(secret, ok, Date.now() + 6 * 60_000)).toThrow("too old");
  });
});
