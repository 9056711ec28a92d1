// Built-in provider rules (docs/monitoring.md "Incidents") through a real gw in front of a scripted
// OpenAI upstream, on a ManualClock: failing live calls open a project-less incident for the
// provider's component, successes resolve it, and no webhook event is raised for it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { openaiUpstream, startGw, type Harness } from "../../helpers/start-gw.ts";
import { post } from "../../helpers/test-gw.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";

let h: Harness<{ openai: ReturnType<typeof openaiUpstream> }, Record<never, never>>;
let up: ScriptedUpstream;
let key: string;
const clock = new ManualClock(Date.now() + 30_000);

beforeAll(async () => {
  h = await startGw({ upstreams: { openai: openaiUpstream() }, env: { GW_MONITOR_INTERVAL_S: "3600" }, clock });
  up = h.upstreams.openai;
  key = h.gw.key({ mode: "live", scopes: ["chat"] });
});
afterAll(() => h.stop());

let n = 0;
async function send(count: number, failing: boolean): Promise<void> {
  if (failing) up.script({ status: 500 }, 1000);
  for (let i = 0; i < count; i++) {
    const res = await post(`${h.gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `q ${n++}` }] }, { "X-Gw-Cache": "off" });
    await res.text();
    // Failing calls answer 502 until the provider's circuit opens, then 503.
    if (failing) expect(res.status).toBeGreaterThanOrEqual(502);
    else expect(res.status).toBe(200);
  }
  up.reset();
  await h.gw.drain();
}

describe("built-in provider rules", () => {
  test("an outage of the provider opens one incident for its component and resolves it", async () => {
    await send(20, false);
    await h.gw.deps.alerts.evaluate();
    expect(await h.gw.deps.alerts.builtInIncidents(0)).toEqual([]);

    await send(20, true);
    clock.advance(30_000);
    await h.gw.deps.alerts.evaluate();
    clock.advance(30_000);
    await h.gw.deps.alerts.evaluate();
    const open = await h.gw.deps.alerts.builtInIncidents(0);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ component: "provider-openai", rule_name: "openai availability", severity: "critical", metric: "availability", resolved_at: null });

    // The window slides past the failures: the provider answers again.
    clock.advance(7 * 60_000);
    await send(20, false);
    await h.gw.deps.alerts.evaluate();
    const [after] = await h.gw.deps.alerts.builtInIncidents(0);
    expect(after).toMatchObject({ id: open[0]!.id, resolved_at: clock.now() });
    const events = h.gw.deps.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhook_events WHERE type LIKE 'incident.%'").get();
    expect(events?.n).toBe(0);
  });

  test("a failed routed request names the provider it last tried, and counts against it", async () => {
    const before = h.gw.deps.db.query<{ n: number }, []>("SELECT COALESCE(SUM(requests - ok), 0) AS n FROM status_rollups WHERE component = 'provider:openai'").get()!.n;
    up.script({ status: 500 }, 1000);
    const res = await post(`${h.gw.url}/chat/completions`, key, { messages: [{ role: "user", content: `routed ${n++}` }] }, { "X-Gw-Cache": "off" });
    const requestId = res.headers.get("x-gw-request-id");
    expect(res.status).toBeGreaterThanOrEqual(502);
    await res.text();
    up.reset();
    await h.gw.drain();
    const row = h.gw.deps.db.query<{ provider: string | null; selected_model: string | null }, [string]>("SELECT provider, selected_model FROM requests WHERE id = ?").get(requestId!);
    expect(row).toEqual({ provider: "openai", selected_model: null });
    const after = h.gw.deps.db.query<{ n: number }, []>("SELECT COALESCE(SUM(requests - ok), 0) AS n FROM status_rollups WHERE component = 'provider:openai'").get()!.n;
    expect(after).toBe(before + 1);
  });
});
