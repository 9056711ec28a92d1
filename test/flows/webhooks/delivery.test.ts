// Webhook delivery against a real gw on a ManualClock (docs/webhooks.md "Retries", "Verifying a
// delivery"): the retry schedule's offsets, 410 and five days of failure disabling an endpoint,
// replays, and every delivery checked with the standardwebhooks package.
import { afterEach, describe, expect, test } from "bun:test";
import { JITTER_FRACTION } from "../../../src/monitoring/webhooks/retry-schedule.ts";
import { admin, ok } from "../../helpers/admin-api.ts";
import { startWebhookReceiver } from "../../helpers/webhook-receiver.ts";
import { startWebhookGw, type WebhookGw } from "./webhook-gw.ts";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

let t: WebhookGw | null = null;
afterEach(async () => {
  await t?.stop();
  t = null;
});

const envelope = (body: string) => JSON.parse(body) as { id: string; type: string; version: string; project_id: string; data: Record<string, unknown> };

describe("webhook delivery", () => {
  test("a receiver answering 500, 500, 500, 200 gets four attempts at the schedule's offsets, all one webhook-id, all verifying", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    r.reply({ status: 500, body: "down" }, 3);
    const { id, secret } = await t.endpoint(r);
    const eventId = t.emit("k1");
    await t.gw.deps.webhooks.runDue();
    expect(r.received).toHaveLength(1);

    for (const offset of [5 * S, 5 * M, 30 * M]) {
      const [row] = t.queued(id);
      const last = r.received.at(-1)?.time ?? 0;
      expect(row?.next_attempt_at).toBeGreaterThanOrEqual(last + offset);
      expect(row?.next_attempt_at).toBeLessThanOrEqual(last + offset * (1 + JITTER_FRACTION));
      const before = r.received.length;
      t.clock.set((row?.next_attempt_at ?? 0) - 1);
      await t.gw.deps.webhooks.runDue();
      expect(r.received).toHaveLength(before); // nothing early
      t.clock.set(row?.next_attempt_at ?? 0);
      await t.gw.deps.webhooks.runDue();
      expect(r.received).toHaveLength(before + 1);
    }
    expect(r.received).toHaveLength(4);
    expect(t.queued(id)).toEqual([]);
    expect(t.gw.deps.db.query("SELECT failing_since FROM webhook_endpoints WHERE id = ?").get(id)).toEqual({ failing_since: null });
    for (const req of r.received) {
      expect(req.headers["webhook-id"]).toBe(eventId);
      expect(req.headers["webhook-timestamp"]).toBe(String(Math.floor(req.time / 1000)));
      expect(envelope(String(JSON.stringify(r.verify(secret, req)))).id).toBe(eventId);
    }
    const page = await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries`));
    const rows = page.data as Array<Record<string, unknown>>;
    expect(rows.map((d) => [d.attempt, d.status_code])).toEqual([[4, 200], [3, 500], [2, 500], [1, 500]]);
    expect(rows[3]?.response_excerpt).toBe("down");
    expect(rows.every((d) => d.event_id === eventId && d.event_type === "credits.low" && typeof d.duration_ms === "number")).toBe(true);
  });

  test("every delivery verifies; a one-byte change of the body or a timestamp over 5 minutes old does not", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const { secret } = await t.endpoint(r);
    t.emit("k1");
    const [req] = await r.waitFor(1);
    if (!req) throw new Error("no delivery");
    const body = envelope(req.body);
    expect(body).toMatchObject({ type: "credits.low", version: "2026-10-04", project_id: t.gw.projectId, data: { balance: 1.5 } });
    expect(r.verify(secret, req)).toEqual(JSON.parse(req.body));
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const flipped = req.body.replace("1.5", "1.6");
    expect(flipped).not.toBe(req.body);
    expect(() => r.verify(secret, { ...req, body: flipped })).toThrow("No matching signature");
    expect(() => r.verify(secret, req, req.time + 5 * M + 1500)).toThrow("too old");
  });

  test("410 disables the endpoint after one attempt; the project's other endpoint gets webhook.endpoint_disabled; PATCH enabled:true re-enables", async () => {
    t = await startWebhookGw();
    const gone = t.receiver();
    gone.reply({ status: 410 });
    const other = t.receiver();
    const a = await t.endpoint(gone);
    const b = await t.endpoint(other);
    t.emit("k1");
    await t.gw.deps.webhooks.runDue();
    await other.waitFor(2);
    expect(gone.received).toHaveLength(1);
    const types = other.received.map((q) => envelope(q.body).type).sort();
    expect(types).toEqual(["credits.low", "webhook.endpoint_disabled"]);
    const disabled = other.received.find((q) => envelope(q.body).type === "webhook.endpoint_disabled");
    expect(other.verify(b.secret, disabled)).toBeTruthy();
    expect(envelope(disabled?.body ?? "{}").data).toEqual({
      endpoint_id: a.id, url: gone.url, reason: "gone", failing_since: new Date(gone.received[0]?.time ?? 0).toISOString().replace("Z", "+00:00"),
    });
    const list = await ok(await admin(t.gw, "GET", `/projects/${t.gw.projectId}/webhooks`));
    const viewA = (list.data as Array<Record<string, unknown>>).find((e) => e.id === a.id);
    expect(viewA).toMatchObject({ enabled: false, disabled_reason: "gone" });

    // Disabled endpoints receive nothing, not even a retry or a test.
    t.emit("k2");
    t.clock.advance(D);
    await t.gw.deps.webhooks.runDue();
    expect(gone.received).toHaveLength(1);
    expect((await admin(t.gw, "POST", `/webhooks/${a.id}/test`)).status).toBe(409);

    const enabled = await ok(await admin(t.gw, "PATCH", `/webhooks/${a.id}`, { enabled: true }));
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
    t.emit("k3");
    await gone.waitFor(2);
    expect(envelope(gone.received[1]?.body ?? "{}").data.key).toBe("k3");
  });

  test("five days of failure disable an endpoint and tell the project's other endpoints", async () => {
    t = await startWebhookGw();
    const failing = t.receiver();
    failing.respond = () => ({ status: 503 });
    const other = t.receiver();
    const a = await t.endpoint(failing, { events: ["credits.low"] });
    await t.endpoint(other, { events: ["webhook.endpoint_disabled"] });
    const t0 = t.clock.now();
    t.emit("day0");
    await t.gw.deps.webhooks.runDue();
    let day = 0;
    while (t.clock.now() - t0 < 5 * D - 12 * H) {
      t.clock.advance(12 * H);
      t.emit(`half-day-${++day}`);
      await t.gw.deps.webhooks.runDue();
      expect((await t.gw.deps.webhooks.get(a.id))?.enabled).toBe(true);
    }
    expect(other.received).toHaveLength(0);
    t.clock.set(t0 + 5 * D);
    t.emit("day5");
    await t.gw.deps.webhooks.runDue();
    expect(await t.gw.deps.webhooks.get(a.id)).toMatchObject({ enabled: false, disabled_reason: "failing" });
    expect(t.queued(a.id)).toEqual([]);
    const [note] = await other.waitFor(1);
    expect(envelope(note?.body ?? "{}").data).toMatchObject({ endpoint_id: a.id, reason: "failing", failing_since: new Date(t0).toISOString().replace("Z", "+00:00") });
  });

  test("a replay keeps webhook-id and body, is signed anew (new timestamp and signature, still verifying), as attempt 1 of a new series", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const { id, secret } = await t.endpoint(r);
    const eventId = t.emit("k1");
    await r.waitFor(1);
    await t.gw.deps.webhooks.runDue();
    const first = ((await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries`))).data as Array<Record<string, unknown>>)[0];
    t.clock.advance(90 * S);
    const replay = await ok(await admin(t.gw, "POST", `/webhook-deliveries/${String(first?.id)}/replay`));
    expect(replay).toMatchObject({ object: "webhook_delivery", event_id: eventId, event_type: "credits.low", attempt: 1, status_code: 200 });
    expect(replay.id).not.toBe(first?.id);
    const [a, b] = r.received;
    if (!a || !b) throw new Error("expected two deliveries");
    expect(b.headers["webhook-id"]).toBe(a.headers["webhook-id"] ?? "");
    expect(b.body).toBe(a.body);
    expect(Number(b.headers["webhook-timestamp"])).toBe(Number(a.headers["webhook-timestamp"]) + 90);
    expect(b.headers["webhook-signature"]).not.toBe(a.headers["webhook-signature"] ?? "");
    expect(r.verify(secret, a)).toEqual(r.verify(secret, b));
  });

  test("rotation: both signatures for 24 h, each secret verifying; only the new one after", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const { id, secret: oldSecret } = await t.endpoint(r);
    const rotated = await ok(await admin(t.gw, "POST", `/webhooks/${id}/rotate-secret`));
    const newSecret = String(rotated.secret);
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(oldSecret);
    t.clock.advance(24 * H - S);
    t.emit("during");
    const [during] = await r.waitFor(1);
    expect(during?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(r.verify(oldSecret, during)).toBeTruthy();
    expect(r.verify(newSecret, during)).toBeTruthy();
    t.clock.advance(S);
    t.emit("after");
    const after = (await r.waitFor(2))[1];
    expect(after?.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(r.verify(newSecret, after)).toBeTruthy();
    expect(() => r.verify(oldSecret, after)).toThrow("No matching signature");
  });

  test("the test endpoint sends test.ping (data {endpoint_id}) now, a fresh event each time, and answers with its delivery", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const other = t.receiver();
    const { id, secret } = await t.endpoint(r, { events: ["invoice.created"] });
    await t.endpoint(other);
    const one = await ok(await admin(t.gw, "POST", `/webhooks/${id}/test`));
    const two = await ok(await admin(t.gw, "POST", `/webhooks/${id}/test`));
    expect(one).toMatchObject({ object: "webhook_delivery", event_type: "test.ping", attempt: 1, status_code: 200, error: null });
    expect(two.event_id).not.toBe(one.event_id);
    expect(r.received).toHaveLength(2);
    expect(envelope(JSON.stringify(r.verify(secret, r.received[0])))).toMatchObject({ id: one.event_id, type: "test.ping", data: { endpoint_id: id } });
    expect(other.received).toHaveLength(0); // a test goes to the endpoint tested alone
  });

  test("an address refused at delivery is not sent to: the attempt fails with the reason", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const { id } = await t.endpoint(r);
    t.gw.deps.db.run("UPDATE webhook_endpoints SET url = 'http://10.1.2.3/hook' WHERE id = ?", [id]);
    t.emit("k1");
    await t.gw.deps.webhooks.runDue();
    const [attempt] = (await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries`))).data as Array<Record<string, unknown>>;
    expect(attempt).toMatchObject({ status_code: null, attempt: 1 });
    expect(String(attempt?.error)).toContain("refused: 10.1.2.3 is a private address");
    expect(t.queued(id)[0]?.attempt).toBe(2);
  });

  test("a redirect is a failure (not followed); a huge answer is cut to 1 KB; Retry-After pushes the retry later", async () => {
    t = await startWebhookGw();
    const r = t.receiver();
    const target = t.receiver();
    r.reply({ status: 302, headers: { location: target.url } });
    r.reply({ status: 503, headers: { "retry-after": "3600" }, body: "é".repeat(4 * 1024 * 1024) });
    const { id } = await t.endpoint(r);
    t.emit("k1");
    await t.gw.deps.webhooks.runDue();
    t.clock.set(t.queued(id)[0]?.next_attempt_at ?? 0);
    await t.gw.deps.webhooks.runDue();
    expect(target.received).toHaveLength(0);
    const [second, first] = (await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries`))).data as Array<Record<string, unknown>>;
    expect(first).toMatchObject({ status_code: 302, error: "redirect not followed" });
    expect(second?.status_code).toBe(503);
    expect(Buffer.byteLength(String(second?.response_excerpt))).toBeLessThanOrEqual(1024);
    expect(String(second?.response_excerpt).startsWith("éé")).toBe(true);
    expect(t.queued(id)[0]?.next_attempt_at).toBeGreaterThanOrEqual(t.clock.now() + H);
  });

  test("one queue row is never attempted twice at once: overlapping passes and replays wait for the attempt in flight", async () => {
    t = await startWebhookGw();
    const r = startWebhookReceiver(); // arrivals on the wall clock: overlap is real time
    t.receivers.push(r);
    r.respond = () => ({ status: 200, delayMs: 150 });
    const { id } = await t.endpoint(r);
    t.emit("k1");
    await Promise.all([t.gw.deps.webhooks.runDue(), t.gw.deps.webhooks.runDue(), t.gw.deps.webhooks.runDue()]);
    expect(r.received).toHaveLength(1);
    const [first] = (await ok(await admin(t.gw, "GET", `/webhooks/${id}/deliveries`))).data as Array<{ id: string }>;
    const [a, b] = await Promise.all([
      admin(t.gw, "POST", `/webhook-deliveries/${first?.id}/replay`),
      admin(t.gw, "POST", `/webhook-deliveries/${first?.id}/replay`),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(r.received).toHaveLength(3);
    const [, second, third] = r.received;
    expect((third?.time ?? 0) - (second?.time ?? 0)).toBeGreaterThanOrEqual(140);
  });
});
