// One delivery attempt (docs/webhooks.md "Retries", "Endpoint URLs"): plain http goes to the checked
// address with the original Host, a refused address is never connected to, a slow receiver times out,
// and only the first 1 KB of an answer is kept.
import { afterEach, describe, expect, test } from "bun:test";
import { sendDelivery } from "../../../src/monitoring/webhooks/send.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";

let r: WebhookReceiver | null = null;
afterEach(async () => {
  await r?.stop();
  r = null;
});

describe("sendDelivery", () => {
  test("http to a name is sent to the address it was checked at, with the name as Host", async () => {
    r = startWebhookReceiver();
    const port = new URL(r.url).port;
    const asked: string[] = [];
    const result = await sendDelivery(`http://hooks.example.test:${port}/hook`, { "webhook-id": "evt_1" }, "{}", {
      allowLoopback: true,
      resolve: async (name) => (asked.push(name), ["127.0.0.1"]),
    });
    expect(asked).toEqual(["hooks.example.test"]);
    expect(result).toMatchObject({ status: 200, error: null, excerpt: "" });
    expect(r.received[0]?.headers.host).toBe(`hooks.example.test:${port}`);
    expect(r.received[0]?.headers["webhook-id"]).toBe("evt_1");
  });

  test("a name resolving to a refused address is not connected to", async () => {
    r = startWebhookReceiver();
    const port = new URL(r.url).port;
    const result = await sendDelivery(`http://rebind.example.test:${port}/hook`, {}, "{}", { allowLoopback: false, resolve: async () => ["127.0.0.1"] });
    expect(result.status).toBeNull();
    expect(result.error).toBe("refused: rebind.example.test resolves to 127.0.0.1, which is a loopback address");
    expect(r.received).toHaveLength(0);
  });

  test("a receiver slower than the timeout is an attempt without a status", async () => {
    r = startWebhookReceiver({ replies: [{ status: 200, delayMs: 500 }] });
    const result = await sendDelivery(r.url, {}, "{}", { allowLoopback: true, timeoutMs: 50 });
    expect(result).toMatchObject({ status: null, error: "timed out" });
    expect(result.durationMs).toBeLessThan(400);
  });

  test("a large answer is cut to its first 1 KB without reading the rest", async () => {
    r = startWebhookReceiver({ replies: [{ status: 400, body: "x".repeat(50 * 1024 * 1024) }] });
    const result = await sendDelivery(r.url, {}, "{}", { allowLoopback: true });
    expect(result.status).toBe(400);
    expect(result.excerpt).toBe("x".repeat(1024));
  });
});
