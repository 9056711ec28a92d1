// A restart over the same data directory (docs/monitoring.md "Alert rules"): a rule's state is stored
// after each evaluation, so a breach pending before the stop fires after it once `for` has passed,
// and a scoped rule counts the requests logged before the restart again (its backfill).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../../src/admin/projects.ts";
import { issueKey } from "../../../src/auth/api-keys.ts";
import { loadConfig } from "../../../src/config/env.ts";
import { buildDeps } from "../../../src/deps.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { startServer, type RunningServer } from "../../../src/server.ts";
import { ADMIN_TOKEN, post } from "../../helpers/test-gw.ts";

const dataDir = mkdtempSync(join(tmpdir(), "gw-alert-restart-"));
const config = loadConfig({ port: "0", data: dataDir }, { GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_MONITOR_INTERVAL_S: "3600", GW_STORAGE_RESERVE_MB: "1" });
const clock = new ManualClock(Date.now() + 30_000);
const start = (): RunningServer => startServer(config, { deps: buildDeps(config, { logger: createLogger("silent"), clock }), quiet: true });
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const adminCall = (s: RunningServer, method: string, path: string, body?: unknown) =>
  fetch(`${s.url}/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
const states = async (s: RunningServer, projectId: string) =>
  Object.fromEntries(((await (await adminCall(s, "GET", `/projects/${projectId}/alert-rules`)).json()) as { data: Array<{ name: string; state: string }> }).data.map((r) => [r.name, r.state]));
const eventTypes = (s: RunningServer, projectId: string) =>
  s.deps.db.query<{ type: string; rule: string }, [string]>("SELECT type, json_extract(body, '$.data.rule_name') AS rule FROM webhook_events WHERE project_id = ? ORDER BY id").all(projectId).map((e) => `${e.type} ${e.rule}`);

describe("alert rules across a restart", () => {
  test("the pending state and the scoped rule's counts survive", async () => {
    let s = start();
    const projectId = createProject(s.deps.repos.projects, { name: "restart" }).id;
    const key = issueKey(s.deps.repos.apiKeys, { projectId, scopes: null, mode: "test" }).secret;
    const base = { metric: "error_rate", op: "gt", threshold: 50, window: "5m", min_requests: 5, for: "2m" };
    for (const body of [{ ...base, name: "whole" }, { ...base, name: "scoped", scope: { model: "gw-test:upstream_error" } }]) {
      expect((await adminCall(s, "POST", `/projects/${projectId}/alert-rules`, body)).status).toBe(201);
    }
    for (let i = 0; i < 6; i++) {
      const res = await post(`${s.url}/chat/completions`, key, { model: "gw-test:upstream_error", messages: [{ role: "user", content: `down ${i}` }] });
      expect(res.status).toBe(502);
    }
    await s.deps.logWriter.drain();
    await s.deps.alerts.evaluate();
    expect(await states(s, projectId)).toEqual({ whole: "pending", scoped: "pending" });
    await s.stop();

    clock.advance(150_000);
    s = start();
    try {
      expect(await states(s, projectId)).toEqual({ whole: "pending", scoped: "pending" });
      await s.deps.alerts.evaluate();
      expect(await states(s, projectId)).toEqual({ whole: "firing", scoped: "firing" });
      expect(eventTypes(s, projectId)).toEqual(["incident.opened whole", "incident.opened scoped"]);
    } finally {
      await s.stop();
    }
  });

  test("after a restart a pass backfills at most two scoped rules; the others wait, their state untouched", async () => {
    let s = start();
    const projectId = createProject(s.deps.repos.projects, { name: "many-scoped" }).id;
    const key = issueKey(s.deps.repos.apiKeys, { projectId, scopes: null, mode: "test" }).secret;
    const base = { metric: "error_rate", op: "gt", threshold: 50, window: "5m", min_requests: 5, scope: { model: "gw-test:upstream_error" } };
    for (const name of ["s1", "s2", "s3"]) expect((await adminCall(s, "POST", `/projects/${projectId}/alert-rules`, { ...base, name })).status).toBe(201);
    for (let i = 0; i < 6; i++) expect((await post(`${s.url}/chat/completions`, key, { model: "gw-test:upstream_error", messages: [{ role: "user", content: `many ${i}` }] })).status).toBe(502);
    await s.deps.logWriter.drain();
    await s.stop();

    clock.advance(10_000);
    s = start();
    try {
      // The data directory is shared with the test above: its scoped rule may take a slot too.
      await s.deps.alerts.evaluate();
      const first = Object.values(await states(s, projectId));
      expect(first.filter((state) => state === "firing").length).toBeGreaterThanOrEqual(1);
      expect(first.filter((state) => state === "normal").length).toBeGreaterThanOrEqual(1);
      await s.deps.alerts.evaluate();
      expect(await states(s, projectId)).toEqual({ s1: "firing", s2: "firing", s3: "firing" });
    } finally {
      await s.stop();
    }
  });
});
