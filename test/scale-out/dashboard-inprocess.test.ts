// The dashboard and the audit log in the multi-instance mode: three instances in one process on one
// PostgreSQL and one Redis (docs/scale-out.md "Dashboard and audit log"). A session opened on one
// instance holds on the others and a sign-out ends it everywhere; audit entries written through one
// are read through another; the request pages show rows served by every instance; failed sign-ins
// are counted once for all instances.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { RedisSignInThrottle, SignInThrottle } from "../../src/auth/sign-in-throttle.ts";
import { GwError } from "../../src/errors/gw-error.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { dashboardSignIn, sharedAdmin, startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { json } from "../helpers/expect-json.ts";
import { waitFor } from "../helpers/wait-for.ts";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
const instances: SharedInstance[] = [];
let projectId: string;
let key: string;

const at = (n: number): SharedInstance => instances[n]!;
const admin = (n: number, method: string, path: string, body?: unknown) => sharedAdmin(at(n), method, path, body);

interface Session { cookie: string; csrf: string }

async function signIn(n: number, token: string): Promise<Session> {
  const { res, cookie, csrf } = await dashboardSignIn(at(n), token);
  await json(res, 200);
  expect(cookie).toStartWith("gw_session=");
  return { cookie, csrf };
}

const dash = (n: number, s: Session, path: string, init: RequestInit = {}) =>
  fetch(`${at(n).origin}/dashboard/api${path}`, { ...init, headers: { cookie: s.cookie, "x-gw-csrf": s.csrf, ...(init.headers ?? {}) } });

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  for (let n = 0; n < 3; n++) instances.push(await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-dash")));
  const project = await json<{ id: string }>(await admin(0, "POST", "/projects", { name: "dash" }), 201);
  projectId = project.id;
  const issued = await json<{ key: string }>(await admin(0, "POST", `/projects/${projectId}/keys`, { scopes: ["chat", "requests"], mode: "test" }), 201);
  key = issued.key;
});
afterAll(async () => {
  for (const i of instances) await i.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

describe("sessions", () => {
  test("a key made on one instance signs in on another; the session holds on the third; sign-out on one ends it everywhere", async () => {
    // The key was made through instance 0: instance 1 signs in with it (its mirror or PostgreSQL).
    const s = await signIn(1, key);
    for (const n of [0, 1, 2]) {
      const me = await json<{ role: string; project_id: string }>(await dash(n, s, "/session"), 200);
      expect(me).toMatchObject({ role: "project", project_id: projectId });
    }
    expect((await json<{ signed_out: boolean }>(await dash(2, s, "/session", { method: "DELETE" }), 200)).signed_out).toBe(true);
    for (const n of [0, 1, 2]) {
      const body = await json<{ error: { code: string } }>(await dash(n, s, "/session"), 401);
      expect(body.error.code).toBe("invalid_api_key");
    }
  });

  test("the operator's session too: signed in on one, it reads the audit log on another", async () => {
    const s = await signIn(0, ADMIN_TOKEN);
    expect((await json<{ role: string }>(await dash(2, s, "/session"), 200)).role).toBe("operator");
    const audit = await json<{ data: Array<{ action: string; project_id: string | null }> }>(await dash(1, s, "/audit?limit=200"), 200);
    const actions = audit.data.map((e) => e.action);
    // Written through instances 0 (project, key, this sign-in) and 1 (the project session's sign-in), 2 (its sign-out).
    for (const a of ["project.create", "key.create", "session.sign_in", "session.sign_out"]) expect(actions).toContain(a);
    expect(audit.data.find((e) => e.action === "key.create")?.project_id).toBe(projectId);
  });
});

describe("audit log", () => {
  test("an admin write through one instance is listed by GET /admin/audit-log on the others, with the same paging", async () => {
    const renamed = await json<{ id: string }>(await admin(2, "PATCH", `/projects/${projectId}`, { name: "dash-renamed" }), 200);
    expect(renamed.id).toBe(projectId);
    // Written before the answer: no wait.
    for (const n of [0, 1]) {
      const page = await json<{ data: Array<{ action: string; target: string | null; details: Record<string, unknown> }> }>(
        await admin(n, "GET", `/audit-log?project_id=${projectId}&limit=1`), 200);
      expect(page.data[0]).toMatchObject({ action: "project.update", target: projectId, details: { fields: ["name"] } });
    }
    const first = await json<{ data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null }>(await admin(0, "GET", "/audit-log?limit=2"), 200);
    expect(first.has_more).toBe(true);
    const second = await json<{ data: Array<{ id: string }> }>(await admin(1, "GET", `/audit-log?limit=2&after=${first.next_cursor}`), 200);
    expect(second.data[0]!.id < first.data[1]!.id).toBe(true);
    expect(JSON.stringify(second)).not.toContain(key);
  });
});

describe("request log and overview", () => {
  test("the requests page and the overview on one instance show the requests served by all three", async () => {
    const served: string[] = [];
    for (const n of [0, 1, 2]) {
      const res = await post(`${at(n).server.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `dash ${n}` }], max_tokens: 8 });
      expect(res.status).toBe(200);
      served.push(res.headers.get("x-gw-request-id") ?? "");
    }
    const s = await signIn(2, key);
    const listed = async () => (await json<{ data: Array<{ request_id: string }> }>(await dash(1, s, "/requests?limit=50"), 200)).data.map((r) => r.request_id);
    expect(served.every((id) => id.startsWith("req_"))).toBe(true);
    // Rows are PostgreSQL's once answered (bounded); waited for all the same, never slept on.
    await waitFor(async () => (await listed()).length >= 3, { what: "three rows in PostgreSQL" });
    const ids = await listed();
    expect([...ids].sort()).toEqual([...served].sort());
    const detail = await json<{ request_id: string }>(await dash(0, s, `/requests/${ids[0]}`), 200);
    expect(detail.request_id).toBe(ids[0]!);
    const overview = await json<{ metrics: { requests: number }; series: { points: Array<{ requests: number }> } }>(await dash(0, s, "/overview?period=1h"), 200);
    expect(overview.metrics.requests).toBe(3);
    expect(overview.series.points.reduce((sum, p) => sum + p.requests, 0)).toBe(3);
    const csv = await (await dash(2, s, "/requests/export?format=csv")).text();
    expect(csv.trim().split("\r\n")).toHaveLength(4);
  });

  test("the cache statistics, recommendations, pages and assets are served (figures: dashboard-stats.test.ts)", async () => {
    const s = await signIn(0, ADMIN_TOKEN);
    for (const path of ["/cache", "/recommendations"]) expect((await dash(1, s, path)).status).toBe(200);
    // Alert rules and the status page read PostgreSQL: served on every instance.
    expect((await dash(1, s, "/monitoring/alert-rules")).status).toBe(200);
    expect((await fetch(`${at(1).origin}/status.json`)).status).toBe(200);
    const page = await fetch(`${at(1).origin}/`);
    expect(page.status).toBe(200);
    const asset = /\/assets\/[^"']+/.exec(await page.text())?.[0];
    expect(asset).toBeDefined();
    expect((await fetch(`${at(1).origin}${asset}`)).status).toBe(200);
    const projects = await json<{ data: Array<{ id: string; balance: number }> }>(await dash(2, s, "/projects"), 200);
    expect(projects.data.map((p) => p.id)).toContain(projectId);
  });
});

describe("projects and keys", () => {
  test("the operator's changes in one instance's dashboard are PostgreSQL's: a key made there serves on another, revoked on a third it is 401 everywhere", async () => {
    const s = await signIn(0, ADMIN_TOKEN);
    const write = (n: number, method: string, path: string, body?: unknown) =>
      dash(n, s, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }) });
    const made = await json<{ id: string; key: string }>(await write(0, "POST", `/projects/${projectId}/keys`, { scopes: ["models", "requests"], mode: "test" }), 201);
    const models = (n: number) => fetch(`${at(n).server.url}/models`, { headers: { authorization: `Bearer ${made.key}` } });
    expect((await models(2)).status).toBe(200);
    const renamed = await json<{ name: string }>(await write(1, "PATCH", `/projects/${projectId}`, { name: "dash-dashboard" }), 200);
    expect(renamed.name).toBe("dash-dashboard");
    // Another instance's mirror follows the bus message (docs/scale-out.md "Tenants").
    await waitFor(async () => (await json<{ name: string }>(await admin(2, "GET", `/projects/${projectId}`), 200)).name === "dash-dashboard", { what: "the rename on instance 2" });
    const credited = await json<{ balance: number }>(await write(2, "POST", `/projects/${projectId}/credits`, { amount: 5 }), 200);
    const detail = await json<{ project: { billing: { balance: number } }; keys: Array<{ id: string }>; usage: { requests_this_month: number } }>(
      await dash(1, s, `/projects/${projectId}`), 200);
    expect(detail.project.billing.balance).toBe(credited.balance);
    expect(detail.keys.map((k) => k.id)).toContain(made.id);
    // PostgreSQL's counters (test keys' requests are not charged: none counted here).
    expect(detail.usage.requests_this_month).toBe(0);
    await json(await write(2, "DELETE", `/keys/${made.id}`), 200);
    for (const n of [0, 1, 2]) await waitFor(async () => (await models(n)).status === 401, { what: `the revoked key refused on instance ${n}` });
    const entries = await json<{ data: Array<{ action: string; actor: { type: string } }> }>(await admin(1, "GET", `/audit-log?project_id=${projectId}&limit=50`), 200);
    const writes = entries.data.filter((e) => e.action !== "admin.read");
    expect(writes.slice(0, 4).map((e) => e.action)).toEqual(["key.revoke", "credits.add", "project.update", "key.create"]);
    expect(writes.slice(0, 4).map((e) => e.actor.type)).toEqual(Array(4).fill("operator_session"));
  });
});

describe("sign-in throttle", () => {
  test("while Redis cannot answer, this instance's own window counts: the address is still locked out", async () => {
    const dead = new RedisClient("redis://127.0.0.1:1", { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 200 });
    try {
      const throttle = new RedisSignInThrottle(dead, new SignInThrottle(3, 60_000, () => Date.now()), 60_000, "test");
      for (let i = 0; i < 3; i++) {
        await throttle.check("192.0.2.7", "locked");
        expect(await throttle.fail("192.0.2.7")).toBe(i + 1);
      }
      const refused = await throttle.check("192.0.2.7", "locked").then(() => null, (err: unknown) => err);
      expect(refused).toBeInstanceOf(GwError);
      expect(refused).toMatchObject({ code: "rate_limited", status: 429 });
      await throttle.check("192.0.2.8", "locked");
    } finally {
      dead.close();
    }
  });


  test("failed sign-ins are counted once for every instance: ten spread over three, the eleventh is 429 on any", async () => {
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${at(i % 3).origin}/dashboard/api/session`, { method: "POST", body: JSON.stringify({ token: "wrong" }) });
      expect(res.status).toBe(401);
    }
    for (const n of [0, 1, 2]) {
      const res = await fetch(`${at(n).origin}/dashboard/api/session`, { method: "POST", body: JSON.stringify({ token: ADMIN_TOKEN }) });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});
