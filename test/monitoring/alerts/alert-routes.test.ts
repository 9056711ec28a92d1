// The alert-rule and incident admin routes through a real server (docs/api.md "Admin API",
// docs/monitoring.md "Alert rules", "Incidents"): views, defaults, 404s, 400s naming the field,
// incident paging, and audit entries naming the rule's project.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { admin, expectError, ISO, ok, type Json } from "../../helpers/admin-api.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
const clock = new ManualClock(Date.now() + 30_000);
beforeAll(async () => {
  gw = await startTestGw({ GW_MONITOR_INTERVAL_S: "3600" }, { clock });
});
afterAll(() => gw.stop());

const RULE = { name: "errors", metric: "error_rate", op: "gt", threshold: 50, window: "1m" };

describe("alert rule admin routes", () => {
  test("create fills in the defaults; list, patch and delete", async () => {
    const p = gw.newProject("routes");
    const created = await ok(await admin(gw, "POST", `/projects/${p}/alert-rules`, RULE), 201);
    expect(created).toMatchObject({
      object: "alert_rule", project_id: p, ...RULE, scope: {}, min_requests: 1, for: "0s", keep_firing_for: "0s",
      severity: "warning", enabled: true, state: "normal",
    });
    expect(created.id).toMatch(/^alr_[0-9a-z]{22}$/);
    expect(created.created_at).toMatch(ISO);
    const patched = await ok(await admin(gw, "PATCH", `/alert-rules/${created.id}`, { threshold: 20, for: "2m" }));
    expect(patched).toMatchObject({ id: created.id, threshold: 20, for: "2m", name: "errors" });
    const list = await ok(await admin(gw, "GET", `/projects/${p}/alert-rules`));
    expect(list).toEqual({ object: "list", data: [{ ...patched }] });
    expect(await ok(await admin(gw, "DELETE", `/alert-rules/${created.id}`))).toEqual({ object: "alert_rule", id: created.id, deleted: true });
    expect((await ok(await admin(gw, "GET", `/projects/${p}/alert-rules`))).data).toEqual([]);
    await expectError(await admin(gw, "DELETE", `/alert-rules/${created.id}`), 404, "not_found", "rule_id");
  });

  test("a project has at most 100 rules: the 101st answers 409 until one is deleted", async () => {
    const p = gw.newProject("many");
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(String((await ok(await admin(gw, "POST", `/projects/${p}/alert-rules`, { ...RULE, name: `r${i}` }), 201)).id));
    await expectError(await admin(gw, "POST", `/projects/${p}/alert-rules`, RULE), 409, "conflict");
    await ok(await admin(gw, "DELETE", `/alert-rules/${ids[0]}`));
    await ok(await admin(gw, "POST", `/projects/${p}/alert-rules`, RULE), 201);
  });

  test("unknown ids answer 404; a bad field answers 400 naming it", async () => {
    const p = gw.newProject("bad");
    await expectError(await admin(gw, "POST", "/projects/prj_nope/alert-rules", RULE), 404, "not_found", "id");
    await expectError(await admin(gw, "GET", "/projects/prj_nope/incidents"), 404, "not_found", "id");
    await expectError(await admin(gw, "PATCH", "/alert-rules/alr_nope", { threshold: 1 }), 404, "not_found", "rule_id");
    await expectError(await admin(gw, "POST", `/projects/${p}/alert-rules`, { ...RULE, for: "soon" }), 400, "invalid_request", "for");
    await expectError(await admin(gw, "POST", `/projects/${p}/alert-rules`, { ...RULE, threshold: 150 }), 400, "invalid_request", "threshold");
    const r = await ok(await admin(gw, "POST", `/projects/${p}/alert-rules`, RULE), 201);
    await expectError(await admin(gw, "PATCH", `/alert-rules/${r.id}`, { window: "2m" }), 400, "invalid_request", "window");
    await expectError(await admin(gw, "GET", `/projects/${p}/incidents?status=closed`), 400, "invalid_request", "status");
    await expectError(await admin(gw, "GET", `/projects/${p}/incidents?limit=0`), 400, "invalid_request", "limit");
    await expectError(await admin(gw, "GET", `/projects/${p}/incidents?after=x`), 400, "invalid_request", "after");
  });

  test("incidents page newest first, narrowed by status", async () => {
    const p = gw.newProject("paging");
    const key = gw.key({ projectId: p });
    const rule = await ok(await admin(gw, "POST", `/projects/${p}/alert-rules`, { ...RULE, metric: "requests", op: "gt", threshold: 0 }), 201);
    const res = await post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(200);
    await gw.drain();
    // Three incidents: each disable resolves the open one, each enable fires again at once.
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await gw.deps.alerts.evaluate();
      if (i < 2) {
        await ok(await admin(gw, "PATCH", `/alert-rules/${rule.id}`, { enabled: false }));
        await ok(await admin(gw, "PATCH", `/alert-rules/${rule.id}`, { enabled: true }));
      }
    }
    const first = await ok(await admin(gw, "GET", `/projects/${p}/incidents?limit=2`));
    const data = first.data as Json[];
    expect(data.map((i) => i.status)).toEqual(["opened", "resolved"]);
    expect(first.has_more).toBe(true);
    const second = await ok(await admin(gw, "GET", `/projects/${p}/incidents?limit=2&after=${first.next_cursor}`));
    expect((second.data as Json[]).map((i) => i.status)).toEqual(["resolved"]);
    expect(second.has_more).toBe(false);
    const opened = await ok(await admin(gw, "GET", `/projects/${p}/incidents?status=opened`));
    expect((opened.data as Json[]).map((i) => i.id)).toEqual([data[0]!.id]);
    expect(data[0]).toMatchObject({ object: "incident", rule_id: rule.id, rule_name: "errors", metric: "requests", threshold: 0, window: "1m", resolved_at: null, last_value: 1 });
  });

  test("a rule's audit entries are listed under its project, its deletion too", async () => {
    const p = gw.newProject("audited");
    const r = await ok(await admin(gw, "POST", `/projects/${p}/alert-rules`, RULE), 201);
    await ok(await admin(gw, "PATCH", `/alert-rules/${r.id}`, { name: "renamed" }));
    await ok(await admin(gw, "DELETE", `/alert-rules/${r.id}`));
    const log = await ok(await admin(gw, "GET", `/audit-log?project_id=${p}`));
    expect((log.data as Json[]).map((e) => [e.action, e.target])).toEqual([
      ["alert_rule.delete", r.id], ["alert_rule.update", r.id], ["alert_rule.create", r.id],
    ]);
  });
});
