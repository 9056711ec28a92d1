// Metrics rollups against a brute-force scan (docs/api.md "Metrics"; docs/observability.md
// "Metrics and log growth"): random rows over 35 days in three projects, written through the request log's
// insert path in random batches (retried batches, batches mixing old and new rows, late rows after
// their hour was compacted), then every period at random instants summed from the rollups and
// from the rows themselves.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentileSorted } from "../../bench/lib/stats.ts";
import { idAt, prng } from "../../bench/observability/rows.ts";
import { ERROR_CODES } from "../../src/errors/codes.ts";
import { bucketOf, emptyHistogram } from "../../src/lib/histogram.ts";
import { metricsObject, metricsWindow } from "../../src/observability/metrics.ts";
import { METRICS_PERIODS, type MetricsPeriod } from "../../src/schema/metrics.ts";
import { openDatabase } from "../../src/store/db.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import { metricsRepo, type MetricsRepo } from "../../src/store/repos/metrics.ts";
import { createProject } from "../../src/admin/projects.ts";
import { projectsRepo } from "../../src/store/repos/projects.ts";
import { requestsRepo, type RequestRecord } from "../../src/store/repos/requests.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const CATEGORIES = Object.values(ERROR_CODES).map((c) => c.category);
const CALLER: ReadonlySet<string> = new Set<string>(Object.values(ERROR_CODES).filter((c) => c.callerSide).map((c) => c.category));

function randomRows(rand: () => number, projects: string[], n: number): RequestRecord[] {
  const rows: RequestRecord[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = Math.floor(T0 - 35 * DAY + rand() * 35.1 * DAY);
    const failed = rand() < 0.3;
    const id = `req_${idAt(createdAt, i, rand)}`;
    rows.push({
      id, projectId: projects[Math.floor(rand() * projects.length)]!, keyId: null, traceId: `trc_${id.slice(4)}`, createdAt,
      endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: "m", provider: "p", task: null, taskSubtype: null,
      inputTokens: Math.floor(rand() * 1000), outputTokens: Math.floor(rand() * 500), cost: Math.round(rand() * 1e6) / 1e9,
      saved: Math.round(rand() * 1e5) / 1e9, cache: rand() < 0.1 ? "exact" : null, status: failed ? 500 : 200,
      errorCode: failed ? "x" : null, errorMessage: null, errorCategory: failed ? CATEGORIES[Math.floor(rand() * CATEGORIES.length)]! : null,
      latencyMs: Math.floor(Math.exp(rand() * 12)), ttftMs: rand() < 0.4 ? Math.floor(Math.exp(rand() * 9)) : null, overheadMs: 1,
      fallbacks: rand() < 0.1 ? 1 + Math.floor(rand() * 2) : 0, workflowId: null, step: null, tags: [], stream: false, test: false,
      trace: rand() < 0.5 ? { n: i } : null,
    });
  }
  return rows.sort((a, b) => a.createdAt - b.createdAt);
}

/** Everything the metrics object is made of, straight from the rows. */
function bruteForce(rows: RequestRecord[]) {
  const latency = emptyHistogram();
  const ttft = emptyHistogram();
  const errors: Record<string, number> = {};
  let failed = 0, callerFailed = 0, fallbacks = 0, cost = 0, saved = 0;
  for (const r of rows) {
    if (r.errorCategory) (failed++, (errors[r.errorCategory] = (errors[r.errorCategory] ?? 0) + 1));
    if (r.errorCategory && CALLER.has(r.errorCategory)) callerFailed++;
    else latency[bucketOf(r.latencyMs)]!++;
    if (r.ttftMs !== null) ttft[bucketOf(r.ttftMs)]!++;
    if (r.fallbacks > 0) fallbacks++;
    cost += r.cost;
    saved += r.saved;
  }
  return { requests: rows.length, failed, callerFailed, fallbacks, cost, saved, errors, latency: [...latency], ttft: [...ttft] };
}

describe("rollups equal a brute-force scan of the rows (property test)", () => {
  let dir: string;
  let db: Database;
  let metrics: MetricsRepo;
  let rows: RequestRecord[];
  let projects: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gw-rollups-"));
    db = openDatabase(dir);
    const p = projectsRepo(db);
    projects = ["a", "b", "c"].map((name) => createProject(p, { name }).id);
    metrics = metricsRepo(db);
    const requests = requestsRepo(db);
    const rand = prng(42);
    rows = randomRows(rand, projects, 6000);
    // About 5% arrive late: after their hour has been compacted.
    const late = rows.filter(() => rand() < 0.05);
    const lateIds = new Set(late.map((r) => r.id));
    const onTime = rows.filter((r) => !lateIds.has(r.id));
    let previous: RequestRecord[] = [];
    for (let i = 0; i < onTime.length;) {
      const batch = onTime.slice(i, (i += 1 + Math.floor(rand() * 300)));
      const roll = rand();
      // A retried batch (all duplicates), or one that mixes a retried batch's rows with new ones.
      const sent = roll < 0.1 ? [...previous, ...batch] : batch;
      expect(requests.insertPrepared(sent.map(prepareRow))).toEqual([]);
      if (roll > 0.9) expect(requests.insertPrepared(batch.map(prepareRow))).toEqual([]);
      if (rand() < 0.3) metrics.compact(batch.at(-1)!.createdAt + Math.floor(rand() * 2 * 3_600_000));
      previous = batch;
    }
    metrics.compact(T0);
    for (let i = 0; i < late.length; i += 17) requests.insertPrepared(late.slice(i, i + 17).map(prepareRow));
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("every row was written once", () => {
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM requests").get()!.n).toBe(rows.length);
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM metrics_rollups WHERE bucket_ms = 3600000").get()!.n).toBeGreaterThan(100);
  });

  test("each period at random instants: counts, sums, errors and histograms match exactly", () => {
    const rand = prng(9);
    for (let trial = 0; trial < 40; trial++) {
      const now = Math.floor(T0 - 4 * DAY + rand() * 4.2 * DAY);
      for (const project of projects) {
        for (const period of Object.keys(METRICS_PERIODS) as MetricsPeriod[]) {
          const { from, to } = metricsWindow(period, now);
          const t = metrics.totals(project, from, to);
          const expected = bruteForce(rows.filter((r) => r.projectId === project && r.createdAt >= from && r.createdAt < to));
          expect({ ...t, cost: 0, saved: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, latency: [...t.latency], ttft: [...t.ttft] })
            .toEqual({ ...expected, cost: 0, saved: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0 });
          expect(t.cost).toBeCloseTo(expected.cost, 9);
          expect(t.saved).toBeCloseTo(expected.saved, 9);
        }
      }
    }
  });

  test("the metrics object's percentiles are within 4% of the exact ones over the raw values", () => {
    for (const project of projects) {
      const { from, to } = metricsWindow("30d", T0);
      const m = metricsObject("30d", metrics.totals(project, from, to));
      const inWindow = rows.filter((r) => r.projectId === project && r.createdAt >= from && r.createdAt < to);
      const latencies = inWindow.filter((r) => !(r.errorCategory && CALLER.has(r.errorCategory))).map((r) => r.latencyMs).sort((a, b) => a - b);
      const ttfts = inWindow.flatMap((r) => (r.ttftMs === null ? [] : [r.ttftMs])).sort((a, b) => a - b);
      for (const p of [50, 95, 99] as const) {
        const exact = percentileSorted(latencies, p);
        expect(Math.abs(m.latency[`p${p}`]! - exact)).toBeLessThanOrEqual(exact * 0.04);
      }
      for (const p of [50, 95] as const) {
        const exact = percentileSorted(ttfts, p);
        expect(Math.abs(m.ttft[`p${p}`]! - exact)).toBeLessThanOrEqual(exact * 0.04);
      }
      expect(m.requests).toBe(inWindow.length);
    }
  });

  test("a 30-day window reads hour rows for compacted hours, not 43,200 minute rows", () => {
    const { from, to } = metricsWindow("30d", T0);
    const read = db.query<{ n: number }, [string, number, number, number]>(
      "SELECT COUNT(*) AS n FROM metrics_rollups WHERE project_id = ? AND bucket_ms = ? AND start_ms >= ? AND start_ms < ?",
    );
    expect(read.get(projects[0]!, 3_600_000, from, to)!.n).toBeLessThanOrEqual(720);
    expect(read.get(projects[0]!, 3_600_000, from, to)!.n).toBeGreaterThan(500);
  });
});
