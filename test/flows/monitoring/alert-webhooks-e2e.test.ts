// The end-to-end check (docs/monitoring.md "Incidents"): a real gw on the real clock with
// GW_MONITOR_INTERVAL_S=1 and loopback webhooks. A burst of `gw-test:upstream_error` requests opens
// an incident of `error_rate gt 50, window 1m, min_requests 5, for 0s`; enough successes bring the
// rate under 50 and resolve it. Both events arrive signed and verify with standardwebhooks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, ok } from "../../helpers/admin-api.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";

let gw: TestGw;
let receiver: WebhookReceiver;
beforeAll(async () => {
  gw = await startTestGw({ GW_MONITOR_INTERVAL_S: "1", GW_WEBHOOK_ALLOW_LOOPBACK: "1" });
  receiver = startWebhookReceiver();
});
afterAll(async () => {
  await gw.stop();
  await receiver.stop();
});

interface Envelope { id: string; type: string; version: string; project_id: string; data: Record<string, unknown> }

async function send(key: string, count: number, model?: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content: `e2e ${model ?? "ok"} ${i}` }], ...(model ? { model } : {}) }, { "X-Gw-Cache": "off" });
    await res.text();
    expect(res.status).toBe(model ? 502 : 200);
  }
}

describe("end to end: an error burst opens an incident, successes resolve it, both delivered signed", () => {
  test("incident.opened then incident.resolved at a loopback receiver", async () => {
    const projectId = gw.newProject("e2e");
    const key = gw.key({ projectId });
    const endpoint = await ok(await admin(gw, "POST", `/projects/${projectId}/webhooks`, { url: receiver.url, events: ["incident.opened", "incident.resolved"] }), 201);
    const secret = endpoint.secret as string;
    const rule = await ok(await admin(gw, "POST", `/projects/${projectId}/alert-rules`, {
      name: "error burst", metric: "error_rate", op: "gt", threshold: 50, window: "1m", min_requests: 5, for: "0s", keep_firing_for: "0s", severity: "critical",
    }), 201);

    await send(key, 6, "gw-test:upstream_error");
    const [openedReq] = await receiver.waitFor(1, 30_000);
    const opened = receiver.verify(secret, openedReq) as Envelope;
    expect(openedReq!.headers["webhook-id"]).toBe(opened.id);
    expect(opened).toMatchObject({ type: "incident.opened", version: "2026-10-04", project_id: projectId });
    expect(opened.data).toMatchObject({ rule_id: rule.id, rule_name: "error burst", severity: "critical", metric: "error_rate", threshold: 50, window: "1m", resolved_at: null });
    expect(opened.data.value as number).toBeGreaterThan(50);

    // More successes than errors: whichever minutes the window covers, the rate falls under 50.
    await send(key, 7);
    const [, resolvedReq] = await receiver.waitFor(2, 30_000);
    const resolved = receiver.verify(secret, resolvedReq) as Envelope;
    expect(resolved).toMatchObject({ type: "incident.resolved", project_id: projectId });
    expect(resolved.data).toMatchObject({ incident_id: opened.data.incident_id, rule_id: rule.id });
    expect(resolved.data.value as number).toBeLessThanOrEqual(50);
    expect(typeof resolved.data.resolved_at).toBe("string");
    // A byte changed no longer verifies.
    expect(() => receiver.verify(secret, { ...resolvedReq!, body: resolvedReq!.body.replace("resolved", "resolveD") })).toThrow();

    const incidents = await ok(await admin(gw, "GET", `/projects/${projectId}/incidents`));
    expect(incidents.data).toEqual([expect.objectContaining({ id: opened.data.incident_id, status: "resolved" })]);
    expect(receiver.received.map((r) => (JSON.parse(r.body) as Envelope).type)).toEqual(["incident.opened", "incident.resolved"]);
  }, 90_000);
});
