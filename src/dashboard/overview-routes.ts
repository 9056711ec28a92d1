// GET /dashboard/api/overview (docs/dashboard.md "Overview API"): GET /metrics' own object for the
// project and period, plus the series, the per-model charts and the cache split, all from rollups.
import { Elysia } from "elysia";
import { overview, overviewModels, SERIES_BUCKET_MS } from "../observability/dashboard-series.ts";
import { metricsObject, metricsWindow } from "../observability/metrics.ts";
import type { MetricsPeriod } from "../schema/metrics.ts";
import { minutePoints } from "../store/postgres/dashboard-reads.ts";
import { modelRows } from "../store/postgres/model-rollups.ts";
import type { SharedState } from "../store/shared.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseMetricsQuery } from "../schema/metrics.ts";
import { READ_DRAIN_LIMIT_MS } from "../store/log-writer.ts";
import { metricsRepo } from "../store/repos/metrics.ts";
import { modelRollupsRepo } from "../store/repos/model-rollups.ts";
import { viewReads } from "../store/repos/view-reads.ts";
import { dashboardSession } from "./session-plugin.ts";

export const overviewRoutes = (deps: Deps, prefix: string) => {
  const sources = { metrics: metricsRepo(deps.db), models: modelRollupsRepo(deps.db), reads: viewReads(deps.db) };
  return new Elysia({ name: "gw-dashboard-overview", prefix })
    .use(dashboardSession(deps))
    .get(
      "/overview",
      async ({ query, projectId }) => {
        const period = parseMetricsQuery(query);
        // Read-your-writes, as GET /metrics: rows still queued are counted too.
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        if (deps.shared) return sharedOverview(deps.shared, projectId, period, deps.clock.now());
        return overview(sources, projectId, period, deps.clock.now());
      },
      { dash: { scope: "requests" } },
    );
};

const usd = (x: number): number => Math.round(x * 1e10) / 1e10;

/** Multi-instance: GET /metrics' object and the series from every instance's rollups in PostgreSQL;
 * the cache split and by_model from the per-model rollups the leader rebuilds every few seconds
 * (docs/scale-out.md "Dashboard and audit log"). */
async function sharedOverview(shared: SharedState, projectId: string, period: MetricsPeriod, now: number) {
  const { from, to } = metricsWindow(period, now);
  const [totals, minutes, models] = await Promise.all([
    shared.logs.totals(projectId, from, to), minutePoints(shared.pg, projectId, from, to), modelRows(shared.pg, projectId, from, to),
  ]);
  const bucketMs = SERIES_BUCKET_MS[period];
  const first = from - (from % bucketMs);
  const points = Array.from({ length: Math.ceil((to - first) / bucketMs) }, (_, i) => ({
    t: first + i * bucketMs, requests: 0, errors: {} as Record<string, number>, cache_exact: 0, cache_semantic: 0, cost: 0, saved: 0,
  }));
  for (const m of minutes) {
    const p = points[Math.floor((m.startMs - first) / bucketMs)];
    if (!p) continue;
    p.requests += m.requests;
    p.cost += m.cost;
    p.saved += m.saved;
    for (const [c, n] of Object.entries(m.errors)) p.errors[c] = (p.errors[c] ?? 0) + Number(n);
  }
  for (const p of points) (p.cost = usd(p.cost)), (p.saved = usd(p.saved));
  const { cache, by_model } = overviewModels(models, points, bucketMs);
  return {
    object: "dashboard.overview" as const,
    period,
    metrics: metricsObject(period, totals),
    cache,
    tokens: { input: totals.inputTokens, output: totals.outputTokens },
    series: { bucket_ms: bucketMs, start: new Date(from).toISOString(), points },
    by_model,
  };
}
