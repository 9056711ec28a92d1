// GET /dashboard/api/overview (docs/dashboard.md "Overview API"): GET /metrics' own object for the
// project and period, plus the series, the per-model charts and the cache split, all from rollups.
import { Elysia } from "elysia";
import { overview } from "../observability/dashboard-series.ts";
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
        return overview(sources, projectId, period, deps.clock.now());
      },
      { dash: { scope: "requests" } },
    );
};
