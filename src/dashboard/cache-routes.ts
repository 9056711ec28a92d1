// The dashboard's cache page API (docs/dashboard.md "Cache API"): what the project's cache holds,
// hits and savings from the rollups, recent miss reasons; emptying and tag invalidation go through
// deps.answers.invalidate, the path of POST /v1/cache/invalidate, and are audited.
import { Elysia } from "elysia";
import { recordAudit } from "../audit/audit-log.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import { cacheSeries, cacheSeriesOf } from "../observability/dashboard-series.ts";
import { invalidateAnswers } from "../pipeline/cache-store.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseCacheInvalidate, type Invalidation } from "../schema/cache-invalidate.ts";
import { parseMetricsQuery } from "../schema/metrics.ts";
import { readBodyText } from "../schema/validate.ts";
import { READ_DRAIN_LIMIT_MS } from "../store/log-writer.ts";
import { missReasons } from "../store/postgres/dashboard-reads.ts";
import { modelRows } from "../store/postgres/model-rollups.ts";
import { redisCacheFootprint } from "../store/redis/cache-stats.ts";
import { RedisFailure } from "../store/redis/redis-call.ts";
import { metricsWindow } from "../observability/metrics.ts";
import { modelRollupsRepo } from "../store/repos/model-rollups.ts";
import { viewReads } from "../store/repos/view-reads.ts";
import type { Viewer } from "./viewer.ts";
import { actorOf, dashboardSession, sourceIpOf } from "./session-plugin.ts";

/** Miss reasons are counted over this many of the project's newest traces: bounded work per call. */
export const MISS_REASON_TRACES = 5000;

export const cacheRoutes = (deps: Deps, prefix: string) => {
  const models = modelRollupsRepo(deps.db);
  const reads = viewReads(deps.db);

  async function invalidate(what: Invalidation, c: { viewer: Viewer; projectId: string; request: Request; server: unknown }) {
    // Multi-instance: Redis's answers, as POST /v1/cache/invalidate (docs/scale-out.md).
    const deleted = await invalidateAnswers(deps, c.projectId, what);
    const all = "all" in what;
    // Counts only: tags are the caller's labels and may say what the answers were about.
    deps.logger.info({ project_id: c.projectId, all, tags: all ? 0 : what.tags.length, deleted }, "response cache invalidated (dashboard)");
    await recordAudit(deps, {
      actor: actorOf(c.viewer), action: all ? "cache.empty" : "cache.invalidate", projectId: c.projectId, target: c.projectId,
      status: 200, sourceIp: sourceIpOf(c.request, c.server, deps), details: all ? { deleted } : { deleted, tags: what.tags.length },
    });
    return { object: "cache.invalidation", deleted };
  }

  return new Elysia({ name: "gw-dashboard-cache", prefix })
    .use(dashboardSession(deps))
    .get(
      "/cache",
      async ({ query, projectId }) => {
        const period = parseMetricsQuery(query);
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        // Entries still queued for SQLite are written first, so the counts include them.
        await deps.answers.flushed();
        const now = deps.clock.now();
        const policy = deps.repos.projects.get(projectId)?.policy ?? {};
        const enabled = policy.cache !== false;
        const semantic = enabled && policy.semantic_cache === true && deps.semantic !== undefined;
        const head = { object: "dashboard.cache", enabled, mode: enabled ? (semantic ? "exact+semantic" : "exact") : null };
        if (deps.shared) {
          // Multi-instance: entries in Redis (bounded SCAN), hits from the shared rollups, traces of every instance.
          const { from, to } = metricsWindow(period, now);
          const [footprint, rows, reasons] = await Promise.all([
            redisCacheFootprint(deps.shared.redis, projectId).catch((err: unknown) => {
              if (!(err instanceof RedisFailure)) throw err;
              deps.logger.warn({ err }, "cache footprint: Redis did not answer");
              return { entries: 0, bytes: 0, exact: false };
            }),
            modelRows(deps.shared.pg, projectId, from, to), missReasons(deps.shared.pg, projectId, MISS_REASON_TRACES),
          ]);
          return {
            ...head, entries: footprint.entries, bytes: footprint.bytes, footprint_exact: footprint.exact,
            ...cacheSeriesOf(rows, period, now), miss_reasons: reasons,
          };
        }
        return {
          ...head,
          ...reads.cacheFootprint(projectId, now),
          ...cacheSeries({ models }, projectId, period, now),
          miss_reasons: reads.missReasons(projectId, MISS_REASON_TRACES),
        };
      },
      { dash: { scope: "requests" } },
    )
    .post("/cache/empty", ({ viewer, projectId, request, server }) => invalidate({ all: true }, { viewer, projectId, request, server }), {
      dash: { scope: "cache" },
    })
    .post(
      "/cache/invalidate",
      async ({ viewer, projectId, request, server }) => {
        const parsed = parseCacheInvalidate(await readBodyText(request));
        if (!parsed.ok) throw invalidRequest(parsed.message, Object.keys(parsed.errors)[0] ?? "body");
        if (!("tags" in parsed.value)) throw invalidRequest("Give 'tags' to invalidate by tag; POST /cache/empty empties the cache.", "tags");
        return invalidate(parsed.value, { viewer, projectId, request, server });
      },
      { dash: { scope: "cache" }, parse: "none" },
    );
};
