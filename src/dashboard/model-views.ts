// The multi-instance dashboard's per-model figures (docs/scale-out.md "Dashboard and audit log"): the
// overview's cache split and per-model charts and the cache page's series, from rows read ahead from
// PostgreSQL; the same sums as observability/dashboard-series.ts makes from SQLite's rows.
import { emptyHistogram, percentile } from "../lib/histogram.ts";
import { metricsWindow } from "../observability/metrics.ts";
import { SERIES_BUCKET_MS } from "../observability/dashboard-series.ts";
import type { MetricsPeriod } from "../schema/metrics.ts";
import { addModelRow, emptyModelTotals, type ModelRollupRow, type ModelTotals } from "../store/repos/model-rollups.ts";

const percent = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part / whole) * 100_000) / 1000);
const usd = (x: number): number => Math.round(x * 1e10) / 1e10;
const EMPTY = emptyHistogram();

/** Adds the rows' hits into `points` (same buckets as the series) and answers the cache split and by_model. */
export function overviewModels(rows: readonly ModelRollupRow[], points: Array<{ t: number; cache_exact: number; cache_semantic: number }>, bucketMs: number) {
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

/** The cache page's hits, savings and series (as dashboard-series.ts cacheSeries) from rows read ahead. */
export function cacheSeriesOf(rows: readonly ModelRollupRow[], period: MetricsPeriod, now: number) {
  const { from, to } = metricsWindow(period, now);
  const bucketMs = SERIES_BUCKET_MS[period];
  const first = from - (from % bucketMs);
  const points = Array.from({ length: Math.ceil((to - first) / bucketMs) }, (_, i) => ({ t: first + i * bucketMs, exact: 0, semantic: 0, requests: 0 }));
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
