// The dashboard's request log (docs/dashboard.md "Request log"): filtered pages, the export and one
// request's detail, for the session's project only; the same views as GET /v1/requests.
import { Elysia } from "elysia";
import { GwError } from "../errors/gw-error.ts";
import { logEntry, requestDetail } from "../observability/request-log-view.ts";
import type { Deps } from "../pipeline/deps.ts";
import { parseExportFormat, parseLogFilters } from "../schema/dashboard-requests.ts";
import { READ_DRAIN_LIMIT_MS } from "../store/log-writer.ts";
import { exportStream } from "./export.ts";
import { dashboardSession } from "./session-plugin.ts";

const CONTENT_TYPES = { csv: "text/csv; charset=utf-8", ndjson: "application/x-ndjson; charset=utf-8" } as const;

export const dashboardRequestsRoutes = (deps: Deps, prefix: string) => {
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
        const page = deps.repos.requests.page(projectId, filters);
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
        return new Response(exportStream(deps.repos.requests, projectId, filters, format), {
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
        const record = deps.repos.requests.get(projectId, params.request_id);
        if (!record) throw new GwError("not_found", `No request '${params.request_id}' in this project.`, { param: "request_id" });
        return requestDetail(record);
      },
      { dash: { scope: "requests" } },
    );
};
