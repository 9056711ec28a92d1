// The request log in the multi-instance mode, two instances in one process on one PostgreSQL and
// one Redis (docs/scale-out.md): rows written through either are read through both, nothing lands
// in an instance's own SQLite, unshared features answer 503, and a stop writes what it queued.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { openPostgres } from "../../src/store/postgres/connect.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, get, post } from "../helpers/test-gw.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { record } from "../store/contract/request-log.contract.ts";

type Instance = SharedInstance;

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
const instances: Instance[] = [];
let projectId: string;
let key: string;

const startInstance = () => startSharedInstance(pg, redis, { GW_TEST_TRACES_PER_MIN: "1000000", ...upstreamEnv("openai", upstream.url, "sk-log") });

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  for (let n = 0; n < 2; n++) instances.push(await startInstance());
  // One project and test key, in PostgreSQL and in both instances' mirrors of it.
  const [a, b] = instances as [Instance, Instance];
  const created = createProject(a.server.deps.repos.projects, { name: "log" });
  const { balance: _, ...p } = created;
  const issued = issueKey(a.server.deps.repos.apiKeys, { projectId: p.id, scopes: ["chat", "requests"], mode: "test" });
  b.server.deps.repos.projects.create(created);
  b.server.deps.repos.apiKeys.create(issued.key);
  await a.shared.tenants.projects.create(p);
  await a.shared.tenants.keys.create(issued.key);
  projectId = p.id;
  key = issued.secret;
});
afterAll(async () => {
  for (const i of instances) await i.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

const chat = (i: Instance, text: string) =>
  post(`${i.server.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: text }], max_tokens: 16 });

type ListBody = { data: Array<{ request_id: string }>; has_more: boolean };

describe("request log on PostgreSQL", () => {
  test("rows written through either instance are listed, with their traces, by both; none in their own SQLite", async () => {
    const [a, b] = instances as [Instance, Instance];
    for (let n = 0; n < 6; n++) expect((await chat(instances[n % 2]!, `question ${n}`)).status).toBe(200);
    // Each instance's writer commits its own rows, then its traces follow (trace-writer.ts); reads
    // wait only for the reading instance's queue.
    await Promise.all([a.server.deps.logWriter.drain(), b.server.deps.logWriter.drain()]);
    expect(await Promise.all(instances.map((i) => i.shared.logs.flushTraces!(20_000)))).toEqual([true, true]);
    const lists = await Promise.all(instances.map(async (i) => {
      const res = await get(`${i.server.url}/requests?limit=100`, key);
      expect(res.status).toBe(200);
      return (await res.json()) as ListBody;
    }));
    expect(lists[0]!.data).toHaveLength(6);
    expect(lists[1]).toEqual(lists[0]!);
    for (const { request_id: id } of lists[0]!.data) {
      const details = await Promise.all(instances.map(async (i) => (await get(`${i.server.url}/requests/${id}`, key)).json()));
      expect(details[1]).toEqual(details[0]);
      const detail = details[0] as { request_id: string; trace: { trace_id: string; spans?: unknown[] } | null };
      expect(detail.request_id).toBe(id);
      expect(detail.trace?.spans?.length).toBeGreaterThan(0);
    }
    for (const i of instances) {
      expect(i.server.deps.repos.requests.list(projectId, { limit: 100 }).rows).toHaveLength(0);
      expect(i.server.deps.db.query("SELECT count(*) AS n FROM ledger").get()).toEqual({ n: 0 });
    }
    const unknown = await get(`${b.server.url}/requests/req_nope`, key);
    expect(unknown.status).toBe(404);
  });

  test("an answer comes after its row is committed (group commit): every answered request is in PostgreSQL", async () => {
    const a = instances[0]!;
    const answered = await Promise.all(Array.from({ length: 40 }, async (_, n) => {
      const res = await chat(a, `concurrent ${n}`);
      expect(res.status).toBe(200);
      return res.headers.get("x-gw-request-id")!;
    }));
    // No drain: read PostgreSQL directly, as another instance would.
    const found: Array<{ n: number }> = await a.shared.pg.sql.unsafe(
      "SELECT count(*)::int AS n FROM requests WHERE project_id = $1 AND id IN (SELECT jsonb_array_elements_text($2::text::jsonb))",
      [projectId, JSON.stringify(answered)]);
    expect(found[0]!.n).toBe(40);
    // Written in batches, not a transaction per answer.
    expect(a.server.deps.logWriter.pending).toBe(0);
  });

  test("a refused request's answer also comes after its row is committed", async () => {
    const a = instances[0]!;
    const refused = await Promise.all(Array.from({ length: 20 }, async () => {
      const res = await post(`${a.server.url}/chat/completions`, key, { model: "gw-test:budget_exceeded", messages: [{ role: "user", content: "hi" }], max_tokens: 8 });
      expect(res.status).toBe(402);
      return res.headers.get("x-gw-request-id")!;
    }));
    const found: Array<{ n: number }> = await a.shared.pg.sql.unsafe(
      "SELECT count(*)::int AS n FROM requests WHERE project_id = $1 AND status = 402 AND id IN (SELECT jsonb_array_elements_text($2::text::jsonb))",
      [projectId, JSON.stringify(refused)]);
    expect(found[0]!.n).toBe(20);
  });

  test("GET /v1/metrics counts every instance's requests, the same on both", async () => {
    const bodies = await Promise.all(instances.map(async (i) => {
      const res = await get(`${i.server.url}/metrics?period=1h`, key);
      expect(res.status).toBe(200);
      return res.json();
    }));
    expect(bodies[1]).toEqual(bodies[0]);
    expect((bodies[0] as { requests: number }).requests).toBe(66);
    // (the workflow test after this one adds its own requests)
  });

  test("gw.workflow_budget counts what every instance spent on the workflow", async () => {
    const [a, b] = instances as [Instance, Instance];
    const step = (i: Instance, workflow: string, budget: number) => post(`${i.server.url}/chat/completions`, key, {
      model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Next step." }], max_tokens: 16, gw: { workflow_id: workflow, workflow_budget: budget },
    }, { "x-gw-cache": "off" });
    // A test answer costs the model's price: learn one step's cost.
    const first = await step(a, "wf_probe", 1);
    expect(first.status).toBe(200);
    const cost = ((await first.json()) as { gw: { cost: number } }).gw.cost;
    expect(cost).toBeGreaterThan(0);
    // A budget of 1.5 steps: one step fits on either instance alone...
    expect((await step(b, "wf_fresh", 1.5 * cost)).status).toBe(200);
    expect((await step(a, "wf_two", 1.5 * cost)).status).toBe(200);
    // ...and a second step of the same workflow on the other instance finds the first one spent.
    const second = await step(b, "wf_two", 1.5 * cost);
    expect(second.status).toBe(402);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
  });

  test("a workflow's cost logged through one instance is what the other's budget starts from", async () => {
    const [a, b] = instances as [Instance, Instance];
    const now = Date.now();
    for (const cost of [0.25, 0.5]) a.server.deps.logWriter.enqueue(record(projectId, now, { workflowId: "wf_shared", cost }));
    await a.server.deps.logWriter.drain();
    const budgets = b.server.deps.workflowBudgets;
    await budgets.prepare(projectId, "wf_shared");
    expect(budgets.remaining(projectId, "wf_shared", 2)).toBeCloseTo(1.25, 9);
    // Read once per second at most: the next request in that second asks nothing.
    expect(budgets.prepare(projectId, "wf_shared")).toBeNull();
  });
});

describe("every feature in the multi-instance mode", () => {
  const admin = (i: Instance, method: string, path: string, token: string | null = ADMIN_TOKEN) =>
    fetch(`${i.server.url}/admin${path}`, { method, headers: token ? { authorization: `Bearer ${token}`, "content-type": "application/json" } : {}, ...(method === "GET" ? {} : { body: "{}" }) });

  test("is served, none answers 503 for not being shared; health and the shared routes answer", async () => {
    const i = instances[1]!;
    // The status page reads PostgreSQL; the dashboard's breaker view asks for a session first.
    expect((await fetch(`${i.origin}/status.json`)).status).toBe(200);
    expect((await fetch(`${i.origin}/dashboard/api/monitoring`)).status).toBe(401);
    // The admin token is still checked first; the shared admin routes and health still answer.
    expect((await admin(i, "GET", "/audit-log", null)).status).toBe(401);
    expect((await admin(i, "GET", `/projects/${projectId}`)).status).toBe(200);
    expect((await fetch(`${i.origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${i.origin}/readyz`)).status).toBe(200);
  });
});

describe("PostgreSQL unable to write", () => {
  test("an answer waits for its row at most the bound; the row lands once the log can be written", async () => {
    const b = instances[1]!;
    const locker = openPostgres(pg.url, { max: 1, timeoutMs: 30_000 });
    try {
      let id = "";
      await locker.sql.begin(async (tx) => {
        // Every insert into the log waits behind this lock (and times out, and is retried).
        await tx`LOCK TABLE requests IN ACCESS EXCLUSIVE MODE`;
        const res = await chat(b, "while the log is locked");
        expect(res.status).toBe(200);
        id = res.headers.get("x-gw-request-id")!;
        expect(b.server.deps.logWriter.pending).toBe(1);
      });
      await b.server.deps.logWriter.drain();
      const found: Array<{ n: number }> = await b.shared.pg.sql`SELECT count(*)::int AS n FROM requests WHERE project_id = ${projectId} AND id = ${id}`;
      expect(found[0]!.n).toBe(1);
      await b.server.deps.storage.whenHealthy();
    } finally {
      await locker.close();
    }
  });
});

describe("stop", () => {
  test("a stop writes every row still queued to PostgreSQL", async () => {
    const a = instances[0]!;
    const rows = Array.from({ length: 500 }, (_, n) => record(projectId, Date.now(), { tags: [`stop-${n}`] }));
    for (const r of rows) a.server.deps.logWriter.enqueue(r);
    expect(a.server.deps.logWriter.pending).toBeGreaterThan(0);
    await a.server.stop();
    const found: Array<{ n: number }> = await instances[1]!.shared.pg.sql.unsafe(
      "SELECT count(*)::int AS n FROM requests WHERE project_id = $1 AND id IN (SELECT jsonb_array_elements_text($2::text::jsonb))",
      [projectId, JSON.stringify(rows.map((r) => r.id))]);
    expect(found[0]!.n).toBe(500);
  });
});

describe("PostgreSQL gone", () => {
  test("the log's reads answer 503 service_unavailable within the bound", async () => {
    const b = instances[1]!;
    await pg.stop();
    for (const path of ["/requests", "/requests/req_x", "/metrics"]) {
      const res = await get(`${b.server.url}${path}`, key);
      const body = (await res.json()) as { error: { code: string } };
      expect({ path, status: res.status, code: body.error.code }).toEqual({ path, status: 503, code: "service_unavailable" });
    }
  });
});
