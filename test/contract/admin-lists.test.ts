// GET /admin/projects and GET /admin/projects/{id}/keys (docs/api.md "Admin API"): every project,
// and a project's keys without secrets or hashes; admin token only, errors in the envelope.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, createProject, expectError, ok, type Json } from "../helpers/admin-api.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

describe('admin lists (docs/api.md "Admin API")', () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw()));
  afterAll(() => gw.stop());

  test("GET /admin/projects: every project, oldest first, as project objects with their balances", async () => {
    const made = await createProject(gw, { name: "listed", billing: { mode: "prepaid" } });
    await ok(await admin(gw, "POST", `/projects/${made.id}/credits`, { amount: 5 }));
    const list = await ok(await admin(gw, "GET", "/projects"));
    expect(list.object).toBe("list");
    expect(list.has_more).toBe(false);
    const data = list.data as Json[];
    expect(data[0]!.id).toBe(gw.projectId);
    expect(data.at(-1)).toEqual({ ...made, billing: { mode: "prepaid", balance: 5, credit_limit: null } });
    expect(data.every((p) => p.object === "project")).toBe(true);
  });

  test("GET /admin/projects/{id}/keys: oldest first, revoked ones included, never a secret or a hash", async () => {
    const project = (await createProject(gw, { name: "keyed" })).id as string;
    const live = await ok(await admin(gw, "POST", `/projects/${project}/keys`, { name: "ci", ip_allowlist: ["10.0.0.0/8"] }), 201);
    const test = await ok(await admin(gw, "POST", `/projects/${project}/keys`, { mode: "test", scopes: ["chat"] }), 201);
    await ok(await admin(gw, "DELETE", `/keys/${test.id}`));
    const res = await admin(gw, "GET", `/projects/${project}/keys`);
    const text = await res.clone().text();
    for (const secret of [live.key, test.key] as string[]) expect(text).not.toContain(secret);
    for (const k of gw.deps.db.query<{ key_hash: string }, [string]>("SELECT key_hash FROM api_keys WHERE project_id = ?").all(project)) {
      expect(text).not.toContain(k.key_hash);
    }
    const list = await ok(res);
    expect(list).toMatchObject({ object: "list", has_more: false });
    const data = list.data as Json[];
    expect(data).toEqual([
      {
        object: "key", id: live.id, project_id: project, name: "ci", mode: "live", scopes: live.scopes, byok: false,
        ip_allowlist: ["10.0.0.0/8"], created_at: live.created_at, revoked_at: null,
      },
      expect.objectContaining({ id: test.id, mode: "test", scopes: ["chat"], name: null }),
    ]);
    expect(data[1]!.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  test("a project with no keys lists none; an unknown project is 404 not_found", async () => {
    const project = (await createProject(gw, { name: "empty" })).id as string;
    expect((await ok(await admin(gw, "GET", `/projects/${project}/keys`))).data).toEqual([]);
    await expectError(await admin(gw, "GET", "/projects/prj_nope/keys"), 404, "not_found", "id");
  });

  test("both need the admin token: a project key or none answers 401", async () => {
    for (const path of ["/projects", `/projects/${gw.projectId}/keys`]) {
      await expectError(await admin(gw, "GET", path, undefined, null), 401, "invalid_api_key");
      await expectError(await admin(gw, "GET", path, undefined, gw.testKey), 401, "invalid_api_key");
    }
  });

  test("the reads are in the audit log as admin.read", async () => {
    await ok(await admin(gw, "GET", `/projects/${gw.projectId}/keys`));
    const log = await ok(await admin(gw, "GET", `/audit-log?project_id=${gw.projectId}`));
    expect((log.data as Json[]).some((e) => e.action === "admin.read")).toBe(true);
  });
});
