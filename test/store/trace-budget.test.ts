// Fewer bytes per request (docs/observability.md "Trace storage"): test keys keep at most
// GW_TEST_TRACES_PER_MIN detailed traces per project per minute (errors always), and a project past
// GW_PROJECT_LOG_MB of traces keeps its rows but stores no new traces; usage follows retention.
import { afterEach, describe, expect, test } from "bun:test";
import { requestIdAt } from "../../src/lib/ids.ts";
import { startScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw | null = null;
afterEach(async () => {
  await gw?.stop();
  gw = null;
});

const ask = (g: TestGw, key: string, model = "openai/gpt-4o-mini") =>
  post(`${g.url}/chat/completions`, key, { model, messages: [{ role: "user", content: "hello" }] }).then(async (r) => ({ status: r.status, id: r.headers.get("x-gw-request-id")!, body: await r.text() }));

async function detail(g: TestGw, key: string, id: string): Promise<{ trace: { sampled?: boolean; spans?: unknown[] } | null }> {
  return (await fetch(`${g.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } })).json() as never;
}

describe("test-key trace sampling", () => {
  test("at most N detailed traces per project per minute for test keys; errors always; live keys untouched", async () => {
    const upstream = await startScriptedUpstream({});
    gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off", GW_TEST_TRACES_PER_MIN: "3", OPENAI_API_KEY: "sk-sampling-0000", OPENAI_BASE_URL: upstream.url });
    const g = gw;
    const live = g.key({ mode: "live", scopes: ["chat", "requests"] });
    const liveIds = [];
    for (let i = 0; i < 5; i++) liveIds.push((await ask(g, live)).id);
    const ok = [];
    for (let i = 0; i < 6; i++) ok.push(await ask(g, g.testKey));
    const failed = await ask(g, g.testKey, "nope/model");
    expect(failed.status).toBe(404);
    await g.drain();
    const traces = await Promise.all(ok.map((r) => detail(g, g.testKey, r.id)));
    const detailed = traces.filter((t) => Array.isArray(t.trace?.spans)).length;
    const unsampled = traces.filter((t) => t.trace?.sampled === false).length;
    // Within one minute exactly 3 are kept; across a minute boundary at most 3 more.
    expect(detailed).toBeGreaterThanOrEqual(3);
    expect(detailed + unsampled).toBe(6);
    if (detailed === 3) expect(unsampled).toBe(3);
    expect(Array.isArray((await detail(g, g.testKey, failed.id)).trace?.spans)).toBe(true);
    for (const id of liveIds) expect(Array.isArray((await detail(g, live, id)).trace?.spans)).toBe(true);
    await upstream.stop();
  });
});

describe("per-project trace budget", () => {
  test("past the budget rows are written and traces are not; usage is tracked on insert and retention", async () => {
    // About 4 KB: a few explicit-model traces fit, then none.
    gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off", GW_PROJECT_LOG_MB: String(4096 / 1048576), GW_TEST_TRACES_PER_MIN: "1000" });
    const g = gw;
    const other = g.newProject("roomy");
    const otherKey = g.key({ projectId: other, scopes: ["chat", "requests"] });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await ask(g, g.testKey)).id);
    const otherId = (await ask(g, otherKey)).id;
    await g.drain();
    const db = g.deps.db;
    const rows = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM requests WHERE project_id = ?").get(g.projectId)!.n;
    const traced = db.query<{ n: number; s: number }, [string]>("SELECT count(*) AS n, sum(length(data)) AS s FROM traces WHERE project_id = ?").get(g.projectId)!;
    expect(rows).toBe(12);
    expect(traced.n).toBeGreaterThan(0);
    expect(traced.n).toBeLessThan(12);
    const usage = db.query<{ bytes: number }, [string]>("SELECT bytes FROM trace_usage WHERE project_id = ?");
    expect(usage.get(g.projectId)!.bytes).toBe(traced.s);
    // The trace that crossed the budget is the last one stored.
    expect(traced.s - db.query<{ n: number }, [string]>("SELECT length(data) AS n FROM traces WHERE project_id = ? ORDER BY request_id DESC LIMIT 1").get(g.projectId)!.n).toBeLessThan(4096);
    expect((await detail(g, g.testKey, ids.at(-1)!)).trace).toBeNull();
    // Another project has its own budget.
    expect(Array.isArray((await detail(g, otherKey, otherId)).trace?.spans)).toBe(true);
    // Retention gives the budget back.
    g.deps.repos.requests.prune(g.projectId, requestIdAt(Date.now() + 60_000), 1000);
    expect(usage.get(g.projectId)!.bytes).toBe(0);
  });
});
