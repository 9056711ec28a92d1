// The audit log of admin API calls and its two readers (docs/dashboard.md "Audit log"): every call
// recorded with action, project, target, outcome, status and source address, never a secret;
// GET /v1/admin/audit-log for the admin token; GET /dashboard/api/audit for sessions.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, expectError, ok } from "../helpers/admin-api.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

type Entry = { id: string; action: string; project_id: string | null; target: string | null; outcome: string; status: number | null; source_ip: string | null; actor: { type: string }; details: Record<string, unknown> };
type List = { object: string; data: Entry[]; has_more: boolean; next_cursor: string | null };

async function listOf(res: Response): Promise<List> {
  const body: unknown = await ok(res);
  return body as List;
}

const origin = (gw: TestGw) => gw.url.replace(/\/v1$/, "");
const SECRET_MARKER = "sk-audit-marker-0123456789";

async function session(gw: TestGw, token: string): Promise<string> {
  const res = await fetch(`${origin(gw)}/dashboard/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
  if (res.status !== 200) throw new Error(`sign-in ${res.status}: ${await res.text()}`);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

const dashAudit = (gw: TestGw, cookie: string, query = "") => fetch(`${origin(gw)}/dashboard/api/audit${query}`, { headers: { cookie } });

describe("audit log of admin calls", () => {
  let gw: TestGw;
  let projectId: string;
  let keyId: string;
  beforeAll(async () => {
    gw = await startTestGw();
    projectId = String((await ok(await admin(gw, "POST", "/projects", { name: "acme", policy: { cache: true } }), 201)).id);
    await ok(await admin(gw, "PATCH", `/projects/${projectId}`, { plan: "business", policy: { retention: "minimal", cache_ttl: 60 } }));
    keyId = String((await ok(await admin(gw, "POST", `/projects/${projectId}/keys`, { scopes: ["requests"] }), 201)).id);
    await ok(await admin(gw, "PUT", `/projects/${projectId}/provider-keys/openai`, { api_key: SECRET_MARKER }));
    await ok(await admin(gw, "POST", `/projects/${projectId}/credits`, { amount: 5 }));
    await ok(await admin(gw, "GET", `/projects/${projectId}`));
    await ok(await admin(gw, "DELETE", `/keys/${keyId}`));
    await expectError(await admin(gw, "PATCH", `/projects/${projectId}`, { plan: "gold" }), 400, "invalid_request");
    await expectError(await admin(gw, "GET", `/projects/${projectId}`, undefined, "wrong-token"), 401, "invalid_api_key");
    // Failures are written just after their answer (docs/dashboard.md "Audit log").
    await waitFor(async () => (await gw.deps.audit.list({ limit: 200 })).data.length >= 9, { what: "the two failure entries" });
  });
  afterAll(() => gw.stop());

  test("each call is one entry: action by route, project, target, outcome, status, source address", async () => {
    const list = await listOf(await admin(gw, "GET", "/audit-log?limit=20"));
    expect(list.object).toBe("list");
    const rows = list.data.slice().reverse().map((e) => [e.action, e.project_id, e.target, e.outcome, e.status]);
    expect(rows).toEqual([
      ["project.create", projectId, projectId, "success", 201],
      ["project.update", projectId, projectId, "success", 200],
      ["key.create", projectId, keyId, "success", 201],
      ["provider_key.put", projectId, "openai", "success", 200],
      ["credits.add", projectId, projectId, "success", 200],
      ["admin.read", projectId, "/projects/:id", "success", 200],
      ["key.revoke", projectId, keyId, "success", 200],
      ["project.update", projectId, projectId, "failure", 400],
      ["admin.read", projectId, "/projects/:id", "failure", 401],
    ]);
    expect(list.data.every((e) => e.actor.type === "admin_token" && e.source_ip === "127.0.0.1")).toBe(true);
    const update = list.data.find((e) => e.action === "project.update" && e.outcome === "success");
    expect(update?.details).toEqual({ fields: ["plan", "policy"], policy_keys: ["retention", "cache_ttl"] });
    expect(list.data.find((e) => e.action === "key.create")?.details).toEqual({ scopes: ["requests"], mode: "live" });
  });

  test("no entry holds a secret: neither the provider key nor the admin token", () => {
    const stored = JSON.stringify(gw.deps.db.query("SELECT * FROM audit_log").all());
    expect(stored).not.toContain(SECRET_MARKER);
    expect(stored).not.toContain(ADMIN_TOKEN);
  });

  test("pages with limit and after; narrows by project_id; a bad limit is 400", async () => {
    const first = await listOf(await admin(gw, "GET", "/audit-log?limit=4"));
    expect(first.data.length).toBe(4);
    expect(first.has_more).toBe(true);
    const second = await listOf(await admin(gw, "GET", `/audit-log?limit=4&after=${first.next_cursor}`));
    const ids = [...first.data, ...second.data].map((e) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(8);
    const other = await listOf(await admin(gw, "GET", "/audit-log?project_id=prj_none"));
    expect(other.data).toEqual([]);
    await expectError(await admin(gw, "GET", "/audit-log?limit=0"), 400, "invalid_request", "limit");
  });

  test("dashboard: the operator sees every entry; a business project its own; any other plan 403", async () => {
    const operator = await session(gw, ADMIN_TOKEN);
    const all = await listOf(await dashAudit(gw, operator, "?limit=200"));
    expect(all.data.some((e) => e.action === "key.create")).toBe(true);
    expect(all.data.some((e) => e.project_id === null)).toBe(true); // the operator's own sign-in
    const narrowed = await listOf(await dashAudit(gw, operator, `?project=${projectId}&limit=200`));
    expect(narrowed.data.every((e) => e.project_id === projectId)).toBe(true);

    const business = await session(gw, gw.key({ projectId, scopes: ["requests"], mode: "live" }));
    const own = await listOf(await dashAudit(gw, business, "?limit=200"));
    expect(own.data.length).toBeGreaterThan(5);
    expect(own.data.every((e) => e.project_id === projectId)).toBe(true);

    const free = await session(gw, gw.testKey);
    const denied = await expectError(await dashAudit(gw, free), 403, "permission_denied");
    expect(denied.message).toBe("The audit log needs plan business.");
  });
});
