// Log growth (docs/observability.md "Metrics and log growth"; docs/api.md "Request log"): retention deletes
// log rows and traces older than GW_LOG_RETENTION_DAYS in small batches, keeps newer ones and the
// metrics rollups; it runs in the log worker; every GET /requests filter is an index range.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { idAt, prng } from "../../bench/observability/rows.ts";
import { createProject } from "../../src/admin/projects.ts";
import { loadConfig } from "../../src/config/env.ts";
import { metricsWindow } from "../../src/observability/metrics.ts";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import { DAY_MS, logMaintenance } from "../../src/store/log-maintenance.ts";
import { workerLogSink } from "../../src/store/log-worker-sink.ts";
import { metricsRepo } from "../../src/store/repos/metrics.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { requestsRepo, type RequestRecord, type RequestsRepo } from "../../src/store/repos/requests.ts";

const rand = prng(3);
let seq = 0;

function row(projectId: string, createdAt: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const id = `req_${idAt(createdAt, seq++, rand)}`;
  return {
    id, projectId, keyId: null, traceId: `trc_${id.slice(4)}`, createdAt, endpoint: "chat.completions", requestedModel: "gw-auto",
    selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat", taskSubtype: null, inputTokens: 1, outputTokens: 1,
    cost: 0.001, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null, errorCategory: null, latencyMs: 100,
    ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [], stream: false, test: false, trace: { n: 1 },
    ...over,
  };
}

describe("retention: old rows and traces go, newer ones and rollups stay", () => {
  let dir: string;
  let db: Database;
  let repo: RequestsRepo;
  let projects: string[];
  const now = Date.UTC(2026, 10, 20, 12, 0, 0);
  const count = (sql: string): number => db.query<{ n: number }, []>(sql).get()!.n;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gw-retention-"));
    db = openDatabase(dir);
    repo = requestsRepo(db);
    projects = ["a", "b"].map((name) => createProject(projectsRepo(db), { name }).id);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("rows and traces older than the period are deleted in batches; newer ones are kept", () => {
    const ages = [45, 40, 35, 31, 30.01, 29.99, 10, 1, 0];
    const rows = projects.flatMap((p) => ages.map((days) => row(p, now - days * DAY_MS)));
    repo.insertPrepared(rows.map(prepareRow));
    const maintenance = logMaintenance(db);
    // Batches of 2: five old rows per project take three passes, each reporting more to do until the last.
    const passes = [];
    for (let i = 0; i < 5; i++) passes.push(maintenance.pass(now, 30, 2));
    expect(passes.map((p) => p.more)).toEqual([true, true, false, false, false]);
    expect(passes.map((p) => p.rows)).toEqual([4, 4, 2, 0, 0]);
    expect(passes.map((p) => p.traces)).toEqual([4, 4, 2, 0, 0]);
    const kept = rows.filter((r) => r.createdAt >= now - 30 * DAY_MS).map((r) => r.id).sort();
    expect(db.query<{ id: string }, []>("SELECT id FROM requests ORDER BY id").all().map((r) => r.id)).toEqual(kept);
    expect(db.query<{ id: string }, []>("SELECT request_id AS id FROM traces ORDER BY request_id").all().map((r) => r.id)).toEqual(kept);
  });

  test("retention 0 keeps every row; orphan traces past the period go too", () => {
    const old = row(projects[0]!, now - 50 * DAY_MS);
    repo.insertPrepared([prepareRow(old)]);
    expect(logMaintenance(db).pass(now, 0).rows).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM requests")).toBe(1);
    db.run("DELETE FROM requests");
    expect(logMaintenance(db).pass(now, 30).traces).toBe(1);
    expect(count("SELECT COUNT(*) AS n FROM traces")).toBe(0);
  });

  test("rollups outlive the rows: minute rows go after 32 days, hour rows stay, 30-day totals unchanged", () => {
    const rows = [40, 31, 20, 2].map((days) => row(projects[0]!, now - days * DAY_MS));
    repo.insertPrepared(rows.map(prepareRow));
    const metrics = metricsRepo(db);
    const { from, to } = metricsWindow("30d", now);
    const before = metrics.totals(projects[0]!, from, to);
    logMaintenance(db).pass(now, 1);
    expect(count("SELECT COUNT(*) AS n FROM requests")).toBe(0);
    expect(metrics.totals(projects[0]!, from, to)).toEqual(before);
    expect(before.requests).toBe(2);
    expect(count("SELECT COUNT(*) AS n FROM metrics_rollups WHERE bucket_ms = 60000")).toBe(3);
    expect(count("SELECT COUNT(*) AS n FROM metrics_rollups WHERE bucket_ms = 3600000")).toBe(4);
  });
});

describe("retention runs in the log worker (GW_LOG_RETENTION_DAYS)", () => {
  test("the setting: default 30, 0 allowed, anything else refused", () => {
    expect(loadConfig({}, {}).logRetentionDays).toBe(30);
    expect(loadConfig({}, { GW_LOG_RETENTION_DAYS: "0" }).logRetentionDays).toBe(0);
    expect(loadConfig({}, { GW_LOG_RETENTION_DAYS: "7" }).logRetentionDays).toBe(7);
    for (const bad of ["-1", "1.5", "week"]) expect(() => loadConfig({}, { GW_LOG_RETENTION_DAYS: bad })).toThrow(/GW_LOG_RETENTION_DAYS/);
  });

  test("asked to maintain, the worker deletes old rows on its own connection", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-retention-worker-"));
    const db = openDatabase(dir);
    const errors: unknown[] = [];
    const repo = requestsRepo(db);
    const sink = workerLogSink(join(dir, DB_FILE), (err) => errors.push(err), repo);
    try {
      const project = createProject(projectsRepo(db), { name: "w" }).id;
      const now = Date.now();
      repo.insertPrepared([row(project, now - 40 * DAY_MS), row(project, now - 31 * DAY_MS), row(project, now - DAY_MS)].map(prepareRow));
      sink.maintain({ retentionDays: 30, intervalMs: 20 });
      const left = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM requests");
      // The worker's first pass runs at once (after intervalMs); wait for it, bounded.
      for (let waited = 0; left.get()!.n > 1 && waited < 5000; waited += 10) await Bun.sleep(10);
      expect(left.get()!.n).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await sink.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('every GET /requests filter is one index range (docs/observability.md "Indexes of GET /v1/requests")', () => {
  test("query plans: a SEARCH on the primary key or the filter's index, never a scan or a sort", () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-plans-"));
    const db = openDatabase(dir);
    try {
      const prepared: string[] = [];
      // Records the SQL the repo prepares, to ask SQLite how it runs each statement.
      const spy = new Proxy(db, {
        get(target, key) {
          if (key === "query") return (sql: string) => (prepared.push(sql), target.query(sql));
          const value: unknown = Reflect.get(target, key);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const repo = requestsRepo(spy);
      const filters = [{}, { model: "m" }, { status: 429 }, { workflowId: "w" }, { traceId: "t" }];
      for (const f of filters) {
        for (const after of [undefined, "req_0"]) {
          const n = prepared.length;
          repo.list("p", { limit: 20, after, ...f });
          const plan = db.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${prepared.at(-1)}`).all().map((r) => r.detail).join("; ");
          expect(prepared.length === n || plan.length > 0).toBe(true);
          expect(plan).toMatch(/^SEARCH requests USING (PRIMARY KEY|INDEX requests_project_\w+) \(project_id=\?/);
          expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
          if (after) expect(plan).toContain("id<?");
        }
      }
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
