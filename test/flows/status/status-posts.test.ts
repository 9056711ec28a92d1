// The operator's status posts through the admin API (docs/monitoring.md "Status posts"): create,
// list, patch, updates, delete; 400s naming the field, 404 for unknown ids, the admin token required.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { admin, expectError, ISO, ok, type Json } from "../../helpers/admin-api.ts";
import { startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
const clock = new ManualClock(Date.UTC(2026, 10, 26, 12, 0, 0));
const HOUR = 3_600_000;

beforeAll(async () => {
  gw = await startTestGw({}, { clock });
});
afterAll(() => gw.stop());

const incident = (over: Json = {}) => admin(gw, "POST", "/status/incidents", { name: "API errors", components: ["api"], body: "Investigating.", ...over });
const window = (fromH: number, untilH: number, over: Json = {}) => admin(gw, "POST", "/status/maintenances", {
  name: "Upgrade", components: ["cache"], body: "Planned work.",
  scheduled_for: new Date(clock.now() + fromH * HOUR).toISOString(), scheduled_until: new Date(clock.now() + untilH * HOUR).toISOString(), ...over,
});

describe("status posts in the admin API", () => {
  test("an incident: created with its first update, defaults filled in", async () => {
    const p = await ok(await incident(), 201);
    expect(p).toMatchObject({ object: "status_incident", name: "API errors", status: "investigating", impact: "minor", components: ["api"], resolved_at: null, scheduled_for: null });
    expect(String(p.id)).toMatch(/^spi_/);
    expect(p.created_at).toMatch(ISO);
    expect(p.updates).toEqual([{ id: expect.stringMatching(/^spu_/), status: "investigating", body: "Investigating.", created_at: p.created_at }]);
  });

  test("updates change the status, record monitoring and resolution, newest first", async () => {
    const p = await ok(await incident({ impact: "major" }), 201);
    clock.advance(60_000);
    await ok(await admin(gw, "POST", `/status/posts/${p.id}/updates`, { status: "monitoring", body: "A fix is out." }), 201);
    clock.advance(60_000);
    const done = await ok(await admin(gw, "POST", `/status/posts/${p.id}/updates`, { status: "resolved", body: "Resolved." }), 201);
    expect(done.status).toBe("resolved");
    expect(done.resolved_at).toBe(new Date(clock.now()).toISOString());
    expect((done.updates as Json[]).map((u) => u.status)).toEqual(["resolved", "monitoring", "investigating"]);
    const page = JSON.parse(await gw.deps.statusPage.json()) as { incidents: Json[]; gw: { recent_incidents: Json[] } };
    expect(page.incidents.map((x) => x.id)).not.toContain(p.id);
    expect(page.gw.recent_incidents.map((x) => x.id)).toContain(p.id);
  });

  test("a maintenance window: its status follows its times, and completing it early closes it", async () => {
    const m = await ok(await window(1, 3), 201);
    expect(m).toMatchObject({ object: "status_maintenance", status: "scheduled", impact: "maintenance", components: ["cache"] });
    expect(String(m.id)).toMatch(/^spm_/);
    clock.advance(2 * HOUR);
    const list = await ok(await admin(gw, "GET", "/status/posts?limit=100"));
    expect((list.data as Json[]).find((x) => x.id === m.id)!.status).toBe("in_progress");
    const closed = await ok(await admin(gw, "POST", `/status/posts/${m.id}/updates`, { status: "completed", body: "Done early." }), 201);
    expect(closed.status).toBe("completed");
  });

  test("PATCH changes fields; list pages newest first; DELETE removes", async () => {
    const a = await ok(await incident({ name: "first" }), 201);
    clock.advance(1000);
    const b = await ok(await incident({ name: "second" }), 201);
    const patched = await ok(await admin(gw, "PATCH", `/status/posts/${a.id}`, { name: "renamed", impact: "critical", components: ["api", "routing"] }));
    expect(patched).toMatchObject({ name: "renamed", impact: "critical", components: ["api", "routing"] });
    const first = await ok(await admin(gw, "GET", "/status/posts?limit=1"));
    expect((first.data as Json[]).map((x) => x.id)).toEqual([b.id]);
    expect(first.has_more).toBe(true);
    const next = await ok(await admin(gw, "GET", `/status/posts?limit=1&after=${b.id}`));
    expect((next.data as Json[]).map((x) => x.id)).toEqual([a.id]);
    expect(await ok(await admin(gw, "DELETE", `/status/posts/${a.id}`))).toEqual({ object: "status_incident", id: a.id, deleted: true });
    await expectError(await admin(gw, "PATCH", `/status/posts/${a.id}`, { name: "x" }), 404, "not_found");
  });

  test("400 names the bad field", async () => {
    await expectError(await incident({ name: "" }), 400, "invalid_request", "name");
    await expectError(await incident({ status: "exploded" }), 400, "invalid_request", "status");
    await expectError(await incident({ impact: "total" }), 400, "invalid_request", "impact");
    await expectError(await incident({ components: ["api", "database"] }), 400, "invalid_request", "components[1]");
    await expectError(await incident({ body: undefined }), 400, "invalid_request", "body");
    await expectError(await incident({ colour: "red" }), 400, "invalid_request");
    await expectError(await window(1, 2, { scheduled_for: "tomorrow" }), 400, "invalid_request", "scheduled_for");
    await expectError(await window(2, 1), 400, "invalid_request", "scheduled_until");
    const p = await ok(await incident(), 201);
    await expectError(await admin(gw, "POST", `/status/posts/${p.id}/updates`, { status: "in_progress", body: "x" }), 400, "invalid_request", "status");
    await expectError(await admin(gw, "PATCH", `/status/posts/${p.id}`, {}), 400, "invalid_request");
    await expectError(await admin(gw, "GET", "/status/posts?limit=0"), 400, "invalid_request", "limit");
  });

  test("404 for unknown ids; the admin token is required", async () => {
    await expectError(await admin(gw, "POST", "/status/posts/spi_nope/updates", { body: "x" }), 404, "not_found");
    await expectError(await admin(gw, "DELETE", "/status/posts/spm_nope"), 404, "not_found");
    expect((await admin(gw, "GET", "/status/posts", undefined, null)).status).toBe(401);
    expect((await admin(gw, "POST", "/status/incidents", { name: "x", body: "y" }, "wrong-token")).status).toBe(401);
  });

  test("each write is in the audit log", async () => {
    const p = await ok(await incident(), 201);
    const log = await ok(await admin(gw, "GET", "/audit-log?limit=100"));
    expect((log.data as Json[]).some((e) => e.action === "status_post.create" && e.target === p.id)).toBe(true);
  });
});
