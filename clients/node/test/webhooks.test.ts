// webhooks.verify: signatures made by the `standardwebhooks` package, the five-minute tolerance,
// rotation (two signatures), and a real test.ping delivered by gw to a scripted receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { Gw, WebhookVerificationError } from "../dist/index.js";
import { admin, ok } from "../../../test/helpers/admin-api.ts";
import { type TestGw, startTestGw } from "../../../test/helpers/test-gw.ts";
import { type WebhookReceiver, startWebhookReceiver } from "../../../test/helpers/webhook-receiver.ts";

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const client = new Gw({ apiKey: "unused", baseURL: "http://127.0.0.1:9/v1" });
const body = JSON.stringify({ id: "evt_1", type: "test.ping", version: "2026-10-04", timestamp: "2026-11-26T00:00:00+00:00", project_id: "prj_1", data: { endpoint_id: "whe_1" } });

/** Headers as a Standard Webhooks sender makes them, signed by the reference package. */
function signed(key: string, at = new Date(), id = "evt_1", payload = body): Record<string, string> {
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": new Webhook(key).sign(id, at, payload) };
}

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error("verified, but should not have");
}

describe("webhooks.verify against standardwebhooks signatures", () => {
  test("a signed delivery verifies and answers the parsed event (Headers, plain maps, bytes)", () => {
    const key = secret();
    const headers = signed(key);
    expect(client.webhooks.verify(body, headers, key)).toMatchObject({ id: "evt_1", type: "test.ping" });
    expect(client.webhooks.verify(new TextEncoder().encode(body), new Headers(headers), key).type).toBe("test.ping");
    const nodeStyle = { ...headers, "webhook-id": [headers["webhook-id"] ?? ""] };
    expect(client.webhooks.verify(body, nodeStyle, key).id).toBe("evt_1");
  });

  test("a changed body, another secret or a missing header fails", () => {
    const key = secret();
    const headers = signed(key);
    expect(failure(() => client.webhooks.verify(body.replace("test.ping", "test.pong"), headers, key)).message).toContain("signature");
    failure(() => client.webhooks.verify(body, headers, secret()));
    failure(() => client.webhooks.verify(body, { ...headers, "webhook-id": "evt_2" }, key));
    failure(() => client.webhooks.verify(body, { "webhook-id": "evt_1", "webhook-signature": headers["webhook-signature"] }, key));
  });

  test("five minutes' tolerance either way", () => {
    const key = secret();
    const now = Date.now();
    expect(client.webhooks.verify(body, signed(key, new Date(now - 4 * 60_000)), key).id).toBe("evt_1");
    expect(client.webhooks.verify(body, signed(key, new Date(now + 4 * 60_000)), key).id).toBe("evt_1");
    expect(failure(() => client.webhooks.verify(body, signed(key, new Date(now - 6 * 60_000)), key)).message).toContain("five minutes");
    failure(() => client.webhooks.verify(body, signed(key, new Date(now + 6 * 60_000)), key));
  });

  test("during a rotation any one of two signatures matches", () => {
    const [oldKey, newKey] = [secret(), secret()];
    const at = new Date();
    const both = { ...signed(newKey, at), "webhook-signature": `${new Webhook(oldKey).sign("evt_1", at, body)} ${new Webhook(newKey).sign("evt_1", at, body)}` };
    expect(client.webhooks.verify(body, both, oldKey).id).toBe("evt_1");
    expect(client.webhooks.verify(body, both, newKey).id).toBe("evt_1");
    failure(() => client.webhooks.verify(body, both, secret()));
  });
});

describe("a delivery from gw", () => {
  let gw: TestGw;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    gw = await startTestGw({ GW_WEBHOOK_ALLOW_LOOPBACK: "1" });
    receiver = startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
    await gw.stop();
  });

  test("gw's test.ping verifies with the endpoint's secret, and not with another", async () => {
    const endpoint = await ok(await admin(gw, "POST", `/projects/${gw.projectId}/webhooks`, { url: receiver.url }), 201) as { id: string; secret: string };
    await ok(await admin(gw, "POST", `/webhooks/${endpoint.id}/test`));
    const [delivery] = await receiver.waitFor(1);
    const event = client.webhooks.verify(delivery?.body ?? "", delivery?.headers ?? {}, endpoint.secret);
    expect(event.type).toBe("test.ping");
    expect(event.data).toEqual({ endpoint_id: endpoint.id });
    failure(() => client.webhooks.verify(delivery?.body ?? "", delivery?.headers ?? {}, secret()));
  });
});
