// The billing endpoints of the admin API (docs/api.md "Admin API", docs/billing.md "Invoices"):
// POST /admin/projects/{id}/credits and GET /admin/projects/{id}/invoices.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, billedProject, createProject, expectError, ok, type Json } from "../helpers/admin-api.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => (gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" })));
afterAll(() => gw.stop());

describe('admin credits (docs/billing.md "Admin API and CLI")', () => {
  test("credits add up over calls and show in the project's balance", async () => {
    const p = await createProject(gw, { name: "wallet", billing: { mode: "prepaid" } });
    expect(await ok(await admin(gw, "POST", `/projects/${p.id}/credits`, { amount: 10 }))).toEqual({ object: "credits", balance: 10 });
    expect(await ok(await admin(gw, "POST", `/projects/${p.id}/credits`, { amount: 2.5 }))).toEqual({ object: "credits", balance: 12.5 });
    expect(((await ok(await admin(gw, "GET", `/projects/${p.id}`))).billing as Json).balance).toBe(12.5);
  });

  test("amount 0, negative or missing: 400 naming 'amount'; balance unchanged", async () => {
    const p = await createProject(gw, { name: "wallet2" });
    for (const body of [{ amount: 0 }, { amount: -5 }, { amount: "10" }, {}]) {
      await expectError(await admin(gw, "POST", `/projects/${p.id}/credits`, body), 400, "invalid_request", "amount");
    }
    expect(((await ok(await admin(gw, "GET", `/projects/${p.id}`))).billing as Json).balance).toBe(0);
  });

  test("credits for an unknown project: 404 not_found", async () => {
    await expectError(await admin(gw, "POST", "/projects/prj_nope/credits", { amount: 1 }), 404, "not_found");
  });
});

describe('credits (docs/billing.md "Admin API and CLI")', () => {
  test("a balance beyond exact nano-dollar range is refused (400 naming amount)", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    const res = await admin(gw, "POST", `/projects/${p.id}/credits`, { amount: 10_000_000 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("amount");
  });
});

describe("GET /admin/projects/{id}/invoices", () => {
  test("a past month is closed and empty; a bad month is 400; unknown project 404; a project key 401", async () => {
    const p = await billedProject(gw);
    const past = (await (await admin(gw, "GET", `/projects/${p.id}/invoices?month=2020-01`)).json()) as { data: Array<Record<string, unknown>> };
    expect(past.data[0]).toMatchObject({ month: "2020-01", status: "closed", lines: [], period_start: "2020-01-01T00:00:00.000Z", period_end: "2020-02-01T00:00:00.000Z" });
    const bad = await admin(gw, "GET", `/projects/${p.id}/invoices?month=2026-13`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("month");
    expect((await admin(gw, "GET", "/projects/prj_nope/invoices")).status).toBe(404);
    const withKey = await fetch(`${gw.url}/admin/projects/${p.id}/invoices`, { headers: { authorization: `Bearer ${p.key}` } });
    expect(withKey.status).toBe(401);
  });
});
