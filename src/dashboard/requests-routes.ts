// The dashboard's request log (docs/dashboard.md "Request log"): filtered pages, the export and one
// request's detail, for the session's project only; the same views as GET /v1/requests.
import { Elysia } from "elysia";
import { GwError } from "../errors/gw-error.ts";
import { logEntry, requestDetail } from "../observability/request-log-view.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseExportFormat, parseLogFilters } from "../schema/dashboard-requests.ts";
import { READ_DRAIN_LIMIT_MS } from "../store/log-writer.ts";
import { exportStream, type LogPages } from "./export.ts";
import { dashboardSession } from "./session-plugin.ts";

const CONTENT_TYPES = { csv: "text/csv; charset=utf-8", ndjson: "application/x-ndjson; charset=utf-8" } as const;

/** The log the dashboard reads: this instance's SQLite, or in the multi-instance mode every
 * instance's rows in PostgreSQL (the reads GET /v1/requests makes there; docs/scale-out.md). */
export function logPages(deps: Pick<Deps, "repos" | "shared">): LogPages {
  const logs = deps.shared?.logs;
  if (!logs) return deps.repos.requests;
  return {
    page: async (projectId, f) => {
      const { rows, hasMore } = await logs.list(projectId, f);
      return { rows, hasMore, nextCursor: hasMore ? (rows.at(-1)?.id ?? null) : null };
    },
  };
}

export const dashboardRequestsRoutes = (deps: Deps, prefix: string) => {
  const pages = logPages(deps);
  // Read-your-writes: rows still queued from just-served requests are written first.
  const drained = async () => {
    if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
  };
  return new Elysia({ name: "gw-dashboard-requests", prefix })
    .use(dashboardSession(deps))
    .get(
      "/requests",
      async ({ query, projectId }) => {
        const filters = parseLogFilters(query);
        await drained();
        const page = await pages.page(projectId, filters);
        return { object: "list", data: page.rows.map(logEntry), has_more: page.hasMore, next_cursor: page.nextCursor };
      },
      { dash: { scope: "requests" } },
    )
    .get(
      "/requests/export",
      async ({ query, projectId }) => {
        const format = parseExportFormat(query.format);
        // `limit` is the export's own (page size and row cap): the query's is not read.
        const filters = parseLogFilters({ ...query, limit: undefined });
        await drained();
        const stamp = new Date(deps.clock.now()).toISOString().slice(0, 19).replaceAll(":", "");
        return new Response(exportStream(pages, projectId, filters, format), {
          headers: {
            "content-type": CONTENT_TYPES[format],
            "content-disposition": `attachment; filename="requests-${projectId}-${stamp}.${format}"`,
            "cache-control": "no-store",
          },
        });
      },
      { dash: { scope: "requests" } },
    )
    .get(
      "/requests/:request_id",
      async ({ params, projectId }) => {
        await drained();
        const record = deps.shared ? await deps.shared.logs.get(projectId, params.request_id) : deps.repos.requests.get(projectId, params.request_id);
        if (!record) throw new GwError("not_found", `No request '${params.request_id}' in this project.`, { param: "request_id" });
        return requestDetail(record);
      },
      { dash: { scope: "requests" } },
    );
};
