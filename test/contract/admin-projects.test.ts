// POST, GET and PATCH /admin/projects (docs/api.md "Admin API"): the project object, its policy
// merged key by key, and the errors, in the envelope with the gw headers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, createProject, expectError, ISO, ok, type Json } from "../helpers/admin-api.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

describe('admin projects (docs/api.md "Admin API")', () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw()));
  afterAll(() => gw.stop());

  test("POST /admin/projects: 201, the project object with the defaults", async () => {
    const p = await createProject(gw, { name: "acme" });
    expect(p).toMatchObject({
      object: "project", name: "acme", plan: "pro",
      billing: { mode: "postpaid", balance: 0, credit_limit: null }, policy: {},
    });
    expect(p.id).toMatch(/^prj_[0-9a-z]+$/);
    expect(p.created_at).toMatch(ISO);
    expect(Object.keys(p).sort()).toEqual(["billing", "created_at", "id", "name", "object", "plan", "policy"]);
  });

  test('admin answers carry X-Gw-Api-Version and X-Gw-Request-Id, errors included (docs/api.md "Errors")', async () => {
    for (const res of [await admin(gw, "POST", "/projects", { name: "hdr" }), await admin(gw, "GET", "/projects/prj_nope"), await admin(gw, "GET", "/projects/prj_nope", undefined, null)]) {
      expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
      expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
      await res.body?.cancel();
    }
  });

  test("POST with plan, billing and policy keeps them", async () => {
    const p = await createProject(gw, {
      name: "prepaid", plan: "business", billing: { mode: "prepaid" }, policy: { cache: false, trace_sample_rate: 0.1 },
    });
    expect(p).toMatchObject({
      plan: "business", billing: { mode: "prepaid", balance: 0, credit_limit: null }, policy: { cache: false, trace_sample_rate: 0.1 },
    });
  });

  test("POST with an invalid body: 400 invalid_request naming the param", async () => {
    await expectError(await admin(gw, "POST", "/projects", {}), 400, "invalid_request", "name");
    await expectError(await admin(gw, "POST", "/projects", { name: "x", plan: "gold" }), 400, "invalid_request", "plan");
    await expectError(await admin(gw, "POST", "/projects", { name: "x", policy: { retention: "forever" } }), 400, "invalid_request", "policy.retention");
  });

  test("GET /admin/projects/{id} returns the same object; an unknown id is 404 not_found", async () => {
    const created = await createProject(gw);
    expect(await ok(await admin(gw, "GET", `/projects/${created.id}`))).toEqual(created);
    await expectError(await admin(gw, "GET", "/projects/prj_nope"), 404, "not_found");
  });

  test("PATCH merges the policy key by key; null unsets a key; other fields replace", async () => {
    const p = await createProject(gw, { name: "merge", policy: { cache: false, semantic_mode: "aggressive" } });
    const a = await ok(await admin(gw, "PATCH", `/projects/${p.id}`, { policy: { semantic_cache: true, budget_action: "warn" } }));
    expect(a.policy).toEqual({ cache: false, semantic_mode: "aggressive", semantic_cache: true, budget_action: "warn" });
    const b = await ok(await admin(gw, "PATCH", `/projects/${p.id}`, { name: "renamed", plan: "free", policy: { cache: null, semantic_mode: "conservative" } }));
    expect(b).toMatchObject({ name: "renamed", plan: "free" });
    expect(b.policy).toEqual({ semantic_mode: "conservative", semantic_cache: true, budget_action: "warn" });
    // Kept, as GET shows.
    expect(await ok(await admin(gw, "GET", `/projects/${p.id}`))).toEqual(b);
    // A PATCH without policy leaves it alone.
    const c = await ok(await admin(gw, "PATCH", `/projects/${p.id}`, { billing: { credit_limit: 50 } }));
    expect(c.policy).toEqual(b.policy);
    expect(c.billing).toEqual({ mode: "postpaid", balance: 0, credit_limit: 50 });
  });

  test("PATCH with invalid policy values or unknown keys: 400 naming the param, nothing changed", async () => {
    const p = await createProject(gw, { name: "strict", policy: { semantic_mode: "balanced" } });
    const cases: Array<[Json, string]> = [
      [{ policy: { semantic_mode: "wild" } }, "policy.semantic_mode"],
      [{ policy: { trace_sample_rate: 0.3 } }, "policy.trace_sample_rate"],
      [{ policy: { no_such_setting: true } }, "policy.no_such_setting"],
      [{ policy: { budget_action: "explode" } }, "policy.budget_action"],
      [{ policy: { cache: "yes" } }, "policy.cache"],
      [{ plan: "platinum" }, "plan"],
      [{ unknown_field: 1 }, "unknown_field"],
    ];
    for (const [body, param] of cases) {
      await expectError(await admin(gw, "PATCH", `/projects/${p.id}`, body), 400, "invalid_request", param);
    }
    await expectError(await admin(gw, "PATCH", `/projects/${p.id}`, { policy: "off" }), 400, "invalid_request", "policy");
    expect((await ok(await admin(gw, "GET", `/projects/${p.id}`))).policy).toEqual({ semantic_mode: "balanced" });
  });

  test("PATCH on an unknown project: 404 not_found", async () => {
    await expectError(await admin(gw, "PATCH", "/projects/prj_nope", { name: "x" }), 404, "not_found");
  });
});
