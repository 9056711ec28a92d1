// Model rollups and the overview's series (docs/dashboard.md "JSON API"): random rows over 35 days
// written through the request log's insert path (with compaction between batches, late rows, a
// retried batch), then per-model sums against the rows, and series sums against the metrics totals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { idAt, prng } from "../../bench/observability/rows.ts";
import { createProject } from "../../src/admin/projects.ts";
import { overview, cacheSeries } from "../../src/observability/dashboard-series.ts";
import { metricsWindow } from "../../src/observability/metrics.ts";
import { METRICS_PERIODS, type MetricsPeriod } from "../../src/schema/metrics.ts";
import { openDatabase } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { logMaintenance } from "../../src/store/log-maintenance.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import { metricsRepo } from "../../src/store/repos/metrics.ts";
import { emptyModelTotals, addModelRow, modelRollupsRepo } from "../../src/store/repos/model-rollups.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { requestsRepo, type RequestRecord } from "../../src/store/repos/requests.ts";
import { viewReads } from "../../src/store/repos/view-reads.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const MODELS = ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku", null];
const TASKS = ["code", "chat", null];

function randomRows(rand: () => number, projects: string[], n: number): RequestRecord[] {
  const rows: RequestRecord[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = Math.floor(T0 - 35 * DAY + rand() * 35.1 * DAY);
    const failed = rand() < 0.2;
    const cache = rand() < 0.15 ? "exact" : rand() < 0.1 ? "semantic" : null;
    const id = `req_${idAt(createdAt, i, rand)}`;
    const model = MODELS[Math.floor(rand() * MODELS.length)]!;
    rows.push({
      id, projectId: projects[Math.floor(rand() * projects.length)]!, keyId: null, traceId: `trc_${id.slice(4)}`, createdAt,
      endpoint: "chat.completions", requestedModel: model === null ? null : "gw-auto", selectedModel: model, provider: "p",
      task: TASKS[Math.floor(rand() * TASKS.length)]!, taskSubtype: null, inputTokens: Math.floor(rand() * 1000),
      outputTokens: Math.floor(rand() * 500), cost: Math.round(rand() * 1e6) / 1e9, saved: cache ? Math.round(rand() * 1e5) / 1e9 : 0,
      cache, status: failed ? 500 : 200, errorCode: failed ? "x" : null, errorMessage: null,
      errorCategory: failed ? (rand() < 0.5 ? "provider_error" : "invalid_request") : null,
      latencyMs: Math.floor(Math.exp(rand() * 10)), ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null,
      tags: [], stream: false, test: false, trace: null,
    });
  }
  return rows.sort((a, b) => a.createdAt - b.createdAt);
}

describe("model rollups and overview series", () => {
  let dir: string;
  let db: Database;
  let rows: RequestRecord[];
  let projects: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gw-model-rollups-"));
    db = openDatabase(dir);
    const p = projectsRepo(db);
    projects = ["a", "b"].map((name) => createProject(p, { name }).id);
    const requests = requestsRepo(db);
    const maintenance = logMaintenance(db, { requests });
    const rand = prng(17);
    rows = randomRows(rand, projects, 6000);
    // In time order with compaction as time passes; then a late batch of old rows, and a retried batch.
    const late = rows.filter(() => rand() < 0.05);
    const onTime = rows.filter((r) => !late.includes(r));
    for (let i = 0; i < onTime.length; i += 200) {
      const batch = onTime.slice(i, i + 200);
      requests.insertPrepared(batch.map(prepareRow));
      maintenance.pass(batch.at(-1)!.createdAt, 0);
    }
    requests.insertPrepared(late.map(prepareRow));
    requests.insertPrepared(rows.slice(0, 300).map(prepareRow));
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const inWindow = (projectId: string, period: MetricsPeriod, now: number) => {
    const { from, to } = metricsWindow(period, now);
    return rows.filter((r) => r.projectId === projectId && r.createdAt >= from && r.createdAt < to);
  };

  test("per model: requests, cost, cache hits and hit tokens equal the rows, for every period", () => {
    const models = modelRollupsRepo(db);
    for (const period of Object.keys(METRICS_PERIODS) as MetricsPeriod[]) {
      for (const projectId of projects) {
        const { from, to } = metricsWindow(period, T0);
        const byModel = new Map<string, ReturnType<typeof emptyModelTotals>>();
        for (const r of models.rows(projectId, from, to)) addModelRow(byModel.get(r.model) ?? byModel.set(r.model, emptyModelTotals()).get(r.model)!, r);
        const expected = new Map<string, { requests: number; cost: number; exact: number; semantic: number; tokens: number }>();
        for (const r of inWindow(projectId, period, T0)) {
          const key = r.selectedModel ?? r.requestedModel ?? "";
          const e = expected.get(key) ?? { requests: 0, cost: 0, exact: 0, semantic: 0, tokens: 0 };
          e.requests++;
          e.cost += r.cost;
          if (r.cache === "exact") e.exact++;
          if (r.cache === "semantic") e.semantic++;
          if (r.cache) e.tokens += r.inputTokens + r.outputTokens;
          expected.set(key, e);
        }
        expect([...byModel.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [model, e] of expected) {
          const got = byModel.get(model)!;
          expect(got.requests).toBe(e.requests);
          expect(got.cost).toBeCloseTo(e.cost, 9);
          expect(got.cacheExact).toBe(e.exact);
          expect(got.cacheSemantic).toBe(e.semantic);
          expect(got.hitInputTokens + got.hitOutputTokens).toBe(e.tokens);
        }
      }
    }
  });

  test("overview: series sums equal the metrics totals; cache split and by_model sums equal the rows", () => {
    const src = { metrics: metricsRepo(db), models: modelRollupsRepo(db), reads: viewReads(db) };
    for (const period of Object.keys(METRICS_PERIODS) as MetricsPeriod[]) {
      const o = overview(src, projects[0]!, period, T0);
      const window = inWindow(projects[0]!, period, T0);
      const sum = (f: (p: (typeof o.series.points)[number]) => number) => o.series.points.reduce((s, p) => s + f(p), 0);
      expect(o.metrics.requests).toBe(window.length);
      expect(sum((p) => p.requests)).toBe(o.metrics.requests);
      expect(sum((p) => p.cost)).toBeCloseTo(o.metrics.cost, 8);
      expect(sum((p) => p.saved)).toBeCloseTo(o.metrics.saved, 8);
      const errors: Record<string, number> = {};
      for (const p of o.series.points) for (const [c, n] of Object.entries(p.errors)) errors[c] = (errors[c] ?? 0) + n;
      expect(errors).toEqual(o.metrics.errors);
      expect(sum((p) => p.cache_exact)).toBe(window.filter((r) => r.cache === "exact").length);
      expect(sum((p) => p.cache_semantic)).toBe(window.filter((r) => r.cache === "semantic").length);
      expect(o.cache.hits).toBe(o.cache.exact + o.cache.semantic);
      expect(o.by_model.reduce((s, m) => s + m.requests, 0)).toBe(window.length);
      expect(o.tokens.input).toBe(window.reduce((s, r) => s + r.inputTokens, 0));
      // Buckets: aligned, consecutive, covering the window (zeros included).
      expect(o.series.bucket_ms).toBe({ "1h": 60_000, "24h": 3_600_000, "7d": 21_600_000, "30d": DAY }[period]);
      for (let i = 1; i < o.series.points.length; i++) expect(o.series.points[i]!.t - o.series.points[i - 1]!.t).toBe(o.series.bucket_ms);
      expect(o.series.points[0]!.t % o.series.bucket_ms).toBe(0);
      for (const m of o.by_model) expect(m.points.length).toBe(o.series.points.length);
      const c = cacheSeries(src, projects[0]!, period, T0);
      expect(c.hits).toBe(o.cache.hits);
      expect(c.series.points.reduce((s, p) => s + p.requests, 0)).toBe(window.length);
    }
  });

  test("maintenance compacts model rollups into hour rows and prunes minute rows after 32 days, keeping the totals", () => {
    const models = modelRollupsRepo(db);
    const sumOf = (from: number, to: number) => {
      let n = 0;
      for (const p of projects) for (const r of models.rows(p, from, to)) n += r.requests;
      return n;
    };
    const later = T0 + 10 * DAY;
    const before = sumOf(T0 - 30 * DAY - (T0 % 3_600_000), T0 - (T0 % 3_600_000));
    logMaintenance(db).pass(later, 0);
    const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
    expect(count(`SELECT count(*) AS n FROM model_rollups WHERE bucket_ms = 60000 AND start_ms < ${later - 32 * DAY}`)).toBe(0);
    expect(count("SELECT count(*) AS n FROM model_rollups WHERE bucket_ms = 3600000")).toBeGreaterThan(0);
    expect(sumOf(T0 - 30 * DAY - (T0 % 3_600_000), T0 - (T0 % 3_600_000))).toBe(before);
  });

  test("migration 011 backfills minute rows from the log's last 32 days (an upgraded data directory)", () => {
    const since = Date.now() - 32 * DAY + 60_000;
    db.run("DROP TABLE model_rollups");
    db.run("DELETE FROM metrics_meta WHERE name = 'model_hours_before'");
    db.run("DELETE FROM schema_migrations WHERE version = 11");
    expect(migrate(db)).toBe(1);
    const models = modelRollupsRepo(db);
    for (const projectId of projects) {
      const got = new Map<string, number>();
      for (const r of models.rows(projectId, since - (since % 60_000), T0 + DAY)) got.set(r.model, (got.get(r.model) ?? 0) + r.requests);
      const want = new Map<string, number>();
      for (const r of rows) {
        if (r.projectId !== projectId || r.createdAt < since - (since % 60_000)) continue;
        const model = r.selectedModel ?? r.requestedModel ?? "";
        want.set(model, (want.get(model) ?? 0) + 1);
      }
      expect(want.size).toBeGreaterThan(0);
      expect(got).toEqual(want);
    }
  });
});
