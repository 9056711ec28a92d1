// Projects, keys and monitoring through the dashboard API with real sign-ins (docs/dashboard.md "Projects API",
// "Monitoring API"): the admin API's validators and functions, secrets shown once, revocation at once,
// usage and budgets, every write audited (refusals as failures), project sessions read their own list only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ask, chat } from "../contract/request-log-helpers.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

type Session = { cookie: string; csrf: string };
type Json = Record<string, unknown>;
let gw: TestGw;
let base: string;
let operator: Session;
let project: Session;

async function signIn(token: string): Promise<Session> {
  const res = await fetch(`${base}/dashboard/api/session`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }),
  });
  expect(res.status).toBe(200);
  return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
}

async function call(s: Session, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}/dashboard/api${path}`, {
    method,
    headers: { cookie: s.cookie, "x-gw-csrf": s.csrf, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

beforeAll(async () => {
  gw = await startTestGw();
  base = gw.url.replace(/\/v1$/, "");
  operator = await signIn(ADMIN_TOKEN);
  project = await signIn(gw.testKey);
});
afterAll(() => gw.stop());

describe("projects and keys", () => {
  let created: string;

  test("the operator creates a project with the admin API's validator; a bad body is refused the same way", async () => {
    const bad = await call(operator, "POST", "/projects", { name: "x", plan: "gold" });
    expect(bad.status).toBe(400);
    expect((bad.body.error as Json).param).toBe("plan");
    const res = await call(operator, "POST", "/projects", { name: "dash-made", plan: "free", policy: { budgets: { daily: 5 }, budget_action: "warn" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: "project", name: "dash-made", plan: "free", billing: { mode: "postpaid", balance: 0 } });
    created = res.body.id as string;
    const list = await call(operator, "GET", "/projects");
    expect((list.body.data as Json[]).map((p) => p.id)).toEqual([gw.projectId, created]);
    expect((list.body.data as Json[])[1]).toMatchObject({ id: created, name: "dash-made", plan: "free", billing_mode: "postpaid", balance: 0 });
  });

  test("PATCH merges the policy (null unsets a key), validated as the admin API does", async () => {
    expect((await call(operator, "PATCH", `/projects/${created}`, { policy: { cache_ttl: -3 } })).status).toBe(400);
    const res = await call(operator, "PATCH", `/projects/${created}`, { name: "renamed", policy: { budget_action: null, cache: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "renamed", policy: { budgets: { daily: 5 }, cache: false } });
    expect((res.body.policy as Json).budget_action).toBeUndefined();
  });

  test("a key is shown once; the list never holds a secret or a hash; revoking stops the key at once", async () => {
    const res = await call(operator, "POST", `/projects/${created}/keys`, { name: "ci", mode: "test", scopes: ["chat", "requests"] });
    expect(res.status).toBe(201);
    const secret = res.body.key as string;
    expect(secret.length).toBeGreaterThan(20);
    expect((await chat(gw, secret, ask("Key works."))).status).toBe(200);
    const detail = await call(operator, "GET", `/projects/${created}`);
    const keys = detail.body.keys as Json[];
    expect(keys).toEqual([{ id: res.body.id, name: "ci", mode: "test", scopes: ["chat", "requests"], created_at: expect.any(String), revoked_at: null }]);
    expect(JSON.stringify(detail.body)).not.toContain(secret);
    expect(JSON.stringify(detail.body)).not.toContain("hash");
    const revoked = await call(operator, "DELETE", `/keys/${res.body.id}`);
    expect(revoked.body).toEqual({ object: "key", id: res.body.id, revoked: true });
    expect((await chat(gw, secret, ask("Key revoked."))).status).toBe(401);
    expect(((await call(operator, "GET", `/projects/${created}`)).body.keys as Json[])[0]!.revoked_at).toEqual(expect.any(String));
    expect((await call(operator, "DELETE", "/keys/key_nope")).status).toBe(404);
    // Keys made and revoked in the dashboard raise the security events as the admin API's do.
    const events = gw.deps.db.query<{ type: string; body: string }, [string]>("SELECT type, body FROM webhook_events WHERE project_id = ? ORDER BY id").all(created);
    expect(events.map((e) => e.type)).toEqual(["security.key_created", "security.key_revoked"]);
    expect(events.map((e) => JSON.parse(e.body).data.key_id)).toEqual([res.body.id, res.body.id]);
    expect(events.some((e) => e.body.includes(secret))).toBe(false);
  });

  test("credits raise the balance; usage shows the plan allowance and the budgets with spend", async () => {
    const res = await call(operator, "POST", `/projects/${created}/credits`, { amount: 12.5 });
    expect(res.body).toEqual({ object: "credits", balance: 12.5 });
    const detail = await call(operator, "GET", `/projects/${created}`);
    expect((detail.body.project as Json).billing).toMatchObject({ balance: 12.5 });
    expect(detail.body.usage).toEqual({
      plan: "free", requests_this_month: expect.any(Number), plan_allowance: 10_000, budgets: { daily: { budget: 5, spent: 0 }, action: "block" },
    });
    expect((await call(operator, "GET", `/projects/${gw.projectId}`)).body.usage).toMatchObject({ plan: "pro", plan_allowance: null, budgets: null });
  });

  test("every write is audited with the operator session as actor, never a secret", async () => {
    const entries = (await gw.deps.audit.list({ projectId: created })).data;
    const actions = entries.map((e) => e.action);
    for (const a of ["project.create", "project.update", "key.create", "key.revoke", "credits.add"]) expect(actions).toContain(a);
    expect(entries.every((e) => e.actorType === "operator_session")).toBe(true);
    expect(entries.find((e) => e.action === "project.update")!.details).toMatchObject({ policy_keys: ["budget_action", "cache"] });
    // Refused writes are audited as failures with their status and error code.
    const failed = (await gw.deps.audit.list({})).data.filter((e) => e.outcome === "failure");
    expect(failed).toContainEqual(expect.objectContaining({ action: "project.create", status: 400, details: expect.objectContaining({ error: "invalid_request" }) }));
    expect(failed).toContainEqual(expect.objectContaining({ action: "project.update", projectId: created, status: 400 }));
    expect(failed).toContainEqual(expect.objectContaining({ action: "key.revoke", target: "key_nope", status: 404 }));
  });

  test("a project session lists its own project only and can neither read details nor write", async () => {
    const list = await call(project, "GET", "/projects");
    expect((list.body.data as Json[]).map((p) => p.id)).toEqual([gw.projectId]);
    expect((await call(project, "GET", `/projects/${gw.projectId}`)).status).toBe(403);
    expect((await call(project, "POST", "/projects", { name: "nope" })).status).toBe(403);
    expect((await call(project, "POST", `/projects/${gw.projectId}/credits`, { amount: 1 })).status).toBe(403);
    expect((await call(project, "POST", `/projects/${gw.projectId}/keys`, {})).status).toBe(403);
    expect(gw.deps.repos.projects.list().map((p) => p.name)).not.toContain("nope");
  });

  test("writes need the CSRF header", async () => {
    const res = await call({ ...operator, csrf: "wrong" }, "POST", "/projects", { name: "csrf" });
    expect(res.status).toBe(403);
  });
});

describe("GET /dashboard/api/monitoring", () => {
  test("the breakers' state per provider and model after traffic; sample counts for the operator only", async () => {
    gw.deps.health.record("openai", "openai/gpt-4o-mini", { ok: true, latencyMs: 120 });
    const mine = await call(operator, "GET", "/monitoring");
    expect(mine.body.object).toBe("dashboard.monitoring");
    const providers = mine.body.providers as Json[];
    expect(providers).toContainEqual(expect.objectContaining({ provider: "openai", model: null, state: "closed", samples: 1 }));
    expect(providers).toContainEqual(expect.objectContaining({ provider: "openai", model: "openai/gpt-4o-mini", state: "closed", latency_ms: 120 }));
    const theirs = (await call(project, "GET", "/monitoring")).body.providers as Json[];
    expect(theirs.length).toBe(providers.length);
    expect(theirs.every((p) => !("samples" in p))).toBe(true);
  });
});
