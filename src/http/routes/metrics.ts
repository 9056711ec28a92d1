// GET /metrics (docs/api.md "Metrics"): the calling key's project only, scope `requests`,
// answered from the metrics rollups (docs/observability.md "Metrics and log growth").
import { Elysia } from "elysia";
import type { Deps } from "../../pipeline/deps.ts";
import { metricsObject, metricsWindow, projectMetrics } from "../../observability/metrics.ts";
import { parseMetricsQuery } from "../../schema/metrics.ts";
import { metricsRepo } from "../../store/repos/metrics.ts";
import { authPlugin } from "../auth.ts";
import { READ_DRAIN_LIMIT_MS } from "../../store/log-writer.ts";

export const metricsRoute = (deps: Deps) => {
  // Read-only statements on the request thread's connection, prepared once.
  const rollups = metricsRepo(deps.db);
  return new Elysia().use(authPlugin(deps)).get(
    "/metrics",
    async ({ query, auth }) => {
      const period = parseMetricsQuery(query);
      // Read-your-writes: rows still queued from just-served requests are counted too.
      if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
      if (!deps.shared) return projectMetrics(rollups, auth.project.id, period, deps.clock.now());
      // Multi-instance: every instance's rollups are PostgreSQL's (docs/scale-out.md).
      const { from, to } = metricsWindow(period, deps.clock.now());
      return metricsObject(period, await deps.shared.logs.totals(auth.project.id, from, to));
    },
    { scope: "requests" },
  );
};
