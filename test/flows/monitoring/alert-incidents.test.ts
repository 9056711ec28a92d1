// Alert rules through a real server on a ManualClock (docs/monitoring.md "Alert rules", "Incidents"):
// test-key requests (`gw-test:upstream_error` for errors) feed the rollups, the test moves the clock
// and calls deps.alerts.evaluate(); the incident events are read from webhook_events, and for the
// sustained outage delivered to a scripted receiver.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { admin, ok, type Json } from "../../helpers/admin-api.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { startWebhookReceiver } from "../../helpers/webhook-receiver.ts";

let gw: TestGw;
// Ahead of the wall clock, which stamps the request rows: every row sent is inside the windows.
const clock = new ManualClock(Date.now() + 30_000);

beforeAll(async () => {
  gw = await startTestGw({ GW_MONITOR_INTERVAL_S: "3600", GW_WEBHOOK_ALLOW_LOOPBACK: "1" }, { clock });
});
afterAll(() => gw.stop());
// Each test moves the clock minutes on; the next starts again just ahead of the wall clock.
beforeEach(() => clock.set(Date.now() + 30_000));

interface Project { id: string; key: string }
function project(): Project {
  const id = gw.newProject("alerts");
  return { id, key: gw.key({ projectId: id }) };
}

let n = 0;
/** `count` chat requests (errors or successes), then the log drained so the rollups hold them. */
async function send(p: Project, count: number, error: boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    const body = { messages: [{ role: "user", content: `hello ${n++}` }], ...(error ? { model: "gw-test:upstream_error" } : {}) };
    const res = await post(`${gw.url}/chat/completions`, p.key, body, { "X-Gw-Cache": "off" });
    await res.text();
    expect(res.status).toBe(error ? 502 : 200);
  }
  await gw.drain();
}

async function rule(p: Project, body: Json): Promise<Json> {
  const base = { name: "errors", metric: "error_rate", op: "gt", threshold: 50, window: "5m", min_requests: 5, severity: "critical" };
  return ok(await admin(gw, "POST", `/projects/${p.id}/alert-rules`, { ...base, ...body }), 201);
}

async function evaluate(advanceMs = 0): Promise<void> {
  clock.advance(advanceMs);
  await gw.deps.alerts.evaluate();
}

const events = (p: Project) =>
  gw.deps.db.query<{ type: string; body: string }, [string]>("SELECT type, body FROM webhook_events WHERE project_id = ? ORDER BY id").all(p.id)
    .map((e) => ({ type: e.type, data: (JSON.parse(e.body) as { data: Json }).data }));

async function state(p: Project, ruleId: unknown): Promise<unknown> {
  const list = await ok(await admin(gw, "GET", `/projects/${p.id}/alert-rules`));
  return (list.data as Json[]).find((r) => r.id === ruleId)?.state;
}

const incidents = async (p: Project): Promise<Json[]> => (await ok(await admin(gw, "GET", `/projects/${p.id}/incidents`))).data as Json[];

describe("alert rules on a fake clock", () => {
  test("a sustained outage opens exactly one incident and resolves it once", async () => {
    const p = project();
    const receiver = startWebhookReceiver({ now: () => clock.now() });
    const { secret } = await ok(await admin(gw, "POST", `/projects/${p.id}/webhooks`, { url: receiver.url }), 201);
    const r = await rule(p, { for: "2m", keep_firing_for: "1m" });
    await send(p, 6, true);
    await evaluate();
    expect(await state(p, r.id)).toBe("pending");
    await evaluate(60_000);
    await send(p, 2, true);
    await evaluate(60_000);
    expect(await state(p, r.id)).toBe("firing");
    await evaluate(30_000);
    expect(events(p).map((e) => e.type)).toEqual(["incident.opened"]);
    const [opened] = events(p);
    expect(opened!.data).toMatchObject({ rule_id: r.id, rule_name: "errors", severity: "critical", metric: "error_rate", value: 100, threshold: 50, window: "5m", resolved_at: null });
    await send(p, 10, false);
    await evaluate(30_000);
    expect(await state(p, r.id)).toBe("recovering");
    await evaluate(60_000);
    expect(await state(p, r.id)).toBe("normal");
    await evaluate(30_000);
    const all = events(p);
    expect(all.map((e) => e.type)).toEqual(["incident.opened", "incident.resolved"]);
    expect(all[1]!.data.incident_id).toBe(opened!.data.incident_id);
    expect(typeof all[1]!.data.resolved_at).toBe("string");
    const list = await incidents(p);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ object: "incident", id: opened!.data.incident_id, rule_id: r.id, status: "resolved", peak_value: 100, last_value: 44.444 });
    await gw.deps.webhooks.runDue();
    const delivered = await receiver.waitFor(2);
    expect(delivered.map((d) => (receiver.verify(secret as string, d) as { type: string }).type)).toEqual(["incident.opened", "incident.resolved"]);
    expect(receiver.received).toHaveLength(2);
    await receiver.stop();
  });

  test("a spike shorter than `for` opens nothing", async () => {
    const p = project();
    const r = await rule(p, { for: "2m" });
    await send(p, 6, true);
    await evaluate();
    expect(await state(p, r.id)).toBe("pending");
    await send(p, 10, false);
    await evaluate(30_000);
    expect(await state(p, r.id)).toBe("normal");
    await evaluate(180_000);
    expect(events(p)).toEqual([]);
    expect(await incidents(p)).toEqual([]);
  });

  test("flapping within keep_firing_for opens one incident", async () => {
    const p = project();
    await rule(p, { for: "0s", keep_firing_for: "2m" });
    await send(p, 6, true);
    await evaluate();
    await send(p, 7, false);
    await evaluate(30_000);
    await send(p, 2, true);
    await evaluate(30_000);
    await send(p, 3, false);
    await evaluate(30_000);
    expect(events(p).map((e) => e.type)).toEqual(["incident.opened"]);
    await evaluate(120_000);
    expect(events(p).map((e) => e.type)).toEqual(["incident.opened", "incident.resolved"]);
    expect(await incidents(p)).toHaveLength(1);
  });

  test("fewer than min_requests never fires", async () => {
    const p = project();
    const r = await rule(p, { for: "0s" });
    await send(p, 4, true);
    await evaluate();
    await evaluate(30_000);
    expect(await state(p, r.id)).toBe("normal");
    expect(events(p)).toEqual([]);
  });

  test("a scoped rule counts only its model's requests, the ones before it included", async () => {
    const p = project();
    await send(p, 3, true);
    await send(p, 10, false);
    await rule(p, { name: "scoped", scope: { model: "gw-test:upstream_error" }, min_requests: 3 });
    const whole = await rule(p, { name: "whole", min_requests: 3 });
    await evaluate();
    const opened = events(p);
    expect(opened.map((e) => [e.type, e.data.rule_name])).toEqual([["incident.opened", "scoped"]]);
    expect(opened[0]!.data.value).toBe(100);
    expect(await state(p, whole.id)).toBe("normal");
  });

  test("deleting a firing rule resolves its incident", async () => {
    const p = project();
    const r = await rule(p, { for: "0s" });
    await send(p, 5, true);
    await evaluate();
    await ok(await admin(gw, "DELETE", `/alert-rules/${r.id}`));
    expect(events(p).map((e) => e.type)).toEqual(["incident.opened", "incident.resolved"]);
    expect((await incidents(p))[0]).toMatchObject({ status: "resolved" });
  });
});
