// The dashboard's overview and cache views (docs/dashboard.md "JSON API"): `metrics` is GET /metrics'
// own object (projectMetrics); the series and per-model charts add up the same window's rollup rows,
// in buckets aligned to UTC (1h: minutes, 24h: hours, 7d: 6 hours, 30d: days).
import { emptyHistogram, percentile } from "../lib/histogram.ts";
import type { MetricsPeriod } from "../schema/metrics.ts";
import { addStored, emptyTotals } from "../store/metrics-rollup.ts";
import { HOUR_MS, MINUTE_MS, type MetricsRepo } from "../store/repos/metrics.ts";
import { addModelRow, emptyModelTotals, type ModelRollupRow, type ModelRollupsRepo, type ModelTotals } from "../store/repos/model-rollups.ts";
import type { ViewReads } from "../store/repos/view-reads.ts";
import { metricsWindow, projectMetrics } from "./metrics.ts";

export const SERIES_BUCKET_MS: Readonly<Record<MetricsPeriod, number>> = {
  "1h": MINUTE_MS, "24h": HOUR_MS, "7d": 6 * HOUR_MS, "30d": 24 * HOUR_MS,
};

export interface SeriesSources { metrics: MetricsRepo; models: ModelRollupsRepo; reads: ViewReads }

/** Percentages to 3 decimals and USD to 1e-10, as GET /metrics rounds them. */
const percent = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 100_000) / 1000);
const usd = (x: number): number => Math.round(x * 1e10) / 1e10;

/** Bucket starts covering [from, to), aligned to multiples of `bucket` (the first may start before `from`). */
function buckets(from: number, to: number, bucket: number): { first: number; count: number } {
  const first = from - (from % bucket);
  return { first, count: Math.ceil((to - first) / bucket) };
}

export function overview(src: SeriesSources, projectId: string, period: MetricsPeriod, now: number) {
  const metrics = projectMetrics(src.metrics, projectId, period, now);
  const { from, to } = metricsWindow(period, now);
  const bucketMs = SERIES_BUCKET_MS[period];
  const { first, count } = buckets(from, to, bucketMs);
  const at = (start: number) => Math.floor((start - first) / bucketMs);

  const points = Array.from({ length: count }, (_, i) => ({
    t: first + i * bucketMs, requests: 0, errors: {} as Record<string, number>, cache_exact: 0, cache_semantic: 0, cost: 0, saved: 0,
  }));
  const totals = emptyTotals();
  for (const r of src.reads.metricsRows(projectId, from, to)) {
    addStored(totals, r);
    const p = points[at(r.start_ms)]!;
    p.requests += r.requests;
    p.cost += r.cost;
    p.saved += r.saved;
    if (r.errors !== "{}") for (const [c, n] of Object.entries(JSON.parse(r.errors) as Record<string, number>)) p.errors[c] = (p.errors[c] ?? 0) + n;
  }

  const models = overviewModels(src.models.rows(projectId, from, to), points, bucketMs);
  for (const p of points) (p.cost = usd(p.cost)), (p.saved = usd(p.saved));

  return {
    object: "dashboard.overview" as const,
    period,
    metrics,
    cache: models.cache,
    tokens: { input: totals.inputTokens, output: totals.outputTokens },
    series: { bucket_ms: bucketMs, start: new Date(from).toISOString(), points },
    by_model: models.by_model,
  };
}

const EMPTY = emptyHistogram();

/** The rows' hits added into `points` (the series' buckets) and the cache split and per-model charts;
 * the rows however they were read (SQLite here, PostgreSQL in the multi-instance mode). */
export function overviewModels(rows: Iterable<ModelRollupRow>, points: Array<{ t: number; cache_exact: number; cache_semantic: number }>, bucketMs: number) {
  const first = points[0]?.t ?? 0;
  const all = emptyModelTotals();
  const byModel = new Map<string, { total: ModelTotals; points: ModelTotals[] }>();
  for (const r of rows) {
    const i = Math.floor((r.start_ms - first) / bucketMs);
    const p = points[i];
    if (!p) continue;
    addModelRow(all, r);
    p.cache_exact += r.cache_exact;
    p.cache_semantic += r.cache_semantic;
    const name = r.model === "" ? "(none)" : r.model;
    let m = byModel.get(name);
    if (!m) byModel.set(name, (m = { total: emptyModelTotals(), points: [] }));
    addModelRow(m.total, r);
    addModelRow((m.points[i] ??= emptyModelTotals()), r);
  }
  const hits = all.cacheExact + all.cacheSemantic;
  return {
    cache: {
      hits, exact: all.cacheExact, semantic: all.cacheSemantic, hit_rate: percent(hits, all.requests),
      exact_rate: percent(all.cacheExact, all.requests), semantic_rate: percent(all.cacheSemantic, all.requests),
    },
    by_model: [...byModel]
      .sort(([a, x], [b, y]) => y.total.cost - x.total.cost || y.total.requests - x.total.requests || a.localeCompare(b))
      .map(([model, m]) => ({
        model, requests: m.total.requests, cost: usd(m.total.cost), p95_latency_ms: percentile(m.total.latency, 95),
        points: points.map((p, i) => ({ t: p.t, cost: usd(m.points[i]?.cost ?? 0), p95_latency_ms: percentile(m.points[i]?.latency ?? EMPTY, 95) })),
      })),
  };
}

/** Hits over time and what the cache saved, for the cache page (same window and buckets). */
export function cacheSeries(src: Pick<SeriesSources, "models">, projectId: string, period: MetricsPeriod, now: number) {
  const { from, to } = metricsWindow(period, now);
  return cacheSeriesOf(src.models.rows(projectId, from, to), period, now);
}

/** The cache page's hits, savings and series from the window's rows, however they were read. */
export function cacheSeriesOf(rows: Iterable<ModelRollupRow>, period: MetricsPeriod, now: number) {
  const { from, to } = metricsWindow(period, now);
  const bucketMs = SERIES_BUCKET_MS[period];
  const { first, count } = buckets(from, to, bucketMs);
  const points = Array.from({ length: count }, (_, i) => ({ t: first + i * bucketMs, exact: 0, semantic: 0, requests: 0 }));
  const all = emptyModelTotals();
  for (const r of rows) {
    const p = points[Math.floor((r.start_ms - first) / bucketMs)];
    if (!p) continue;
    addModelRow(all, r);
    p.exact += r.cache_exact;
    p.semantic += r.cache_semantic;
    p.requests += r.requests;
  }
  const hits = all.cacheExact + all.cacheSemantic;
  return {
    hits, exact: all.cacheExact, semantic: all.cacheSemantic, hit_rate: percent(hits, all.requests),
    saved_usd: usd(all.hitSaved), saved_tokens: all.hitInputTokens + all.hitOutputTokens,
    series: { bucket_ms: bucketMs, points },
  };
}
