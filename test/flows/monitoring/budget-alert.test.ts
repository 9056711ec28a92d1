// budget_used_pct (docs/monitoring.md "Evaluation"): the project's spend against the budget it uses
// most, read from billing, through a real gw in front of a scripted upstream (live calls are
// charged; test keys are not). min_requests does not apply: the spend stays after traffic stops.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { admin, ok, type Json } from "../../helpers/admin-api.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post } from "../../helpers/test-gw.ts";

let h: Awaited<ReturnType<typeof startGw<{ openai: ReturnType<typeof openaiUpstream> }>>>;
const clock = new ManualClock(Date.now() + 30_000);
beforeAll(async () => {
  h = await startGw({ upstreams: { openai: openaiUpstream() }, env: { GW_MONITOR_INTERVAL_S: "3600" }, clock });
});
afterAll(() => h.stop());

const rules = async (projectId: string): Promise<Json[]> => (await ok(await admin(h.gw, "GET", `/projects/${projectId}/alert-rules`))).data as Json[];

describe("budget_used_pct", () => {
  test("fires once the spend passes the threshold of the daily budget and stays firing without traffic", async () => {
    const project = await ok(await admin(h.gw, "POST", "/projects", { name: "budget", policy: { budgets: { daily: 0.000001, monthly: 100 }, budget_action: "warn" } }), 201);
    const projectId = project.id as string;
    const key = h.gw.key({ projectId, mode: "live", scopes: ["chat"] });
    await ok(await admin(h.gw, "POST", `/projects/${projectId}/alert-rules`, { name: "budget", metric: "budget_used_pct", op: "gt", threshold: 80, window: "1h", min_requests: 5 }), 201);
    await h.gw.deps.alerts.evaluate();
    expect((await rules(projectId))[0]!.state).toBe("normal");

    const res = await post(`${h.gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "spend" }] }, { "X-Gw-Cache": "off" });
    expect(res.status).toBe(200);
    await res.text();
    await h.gw.drain();
    await h.gw.deps.billing.drain();
    clock.advance(30_000);
    await h.gw.deps.alerts.evaluate();
    clock.advance(2 * 60_000);
    await h.gw.deps.alerts.evaluate();
    expect((await rules(projectId))[0]!.state).toBe("firing");
    const events = h.gw.deps.db.query<{ body: string }, [string]>("SELECT body FROM webhook_events WHERE project_id = ? AND type = 'incident.opened'").all(projectId);
    expect(events).toHaveLength(1);
    const data = (JSON.parse(events[0]!.body) as { data: Json }).data;
    expect(data).toMatchObject({ metric: "budget_used_pct", threshold: 80 });
    expect(data.value as number).toBeGreaterThan(100);
  });
});
