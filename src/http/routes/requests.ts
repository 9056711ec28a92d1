// GET /requests and GET /requests/{id} (docs/api.md "Request log", "Request detail"): the calling key's project only.
import { Elysia } from "elysia";
import { GwError } from "../../errors/gw-error.ts";
import { parseRequestsQuery } from "../../schema/requests.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { READ_DRAIN_LIMIT_MS } from "../../store/log-writer.ts";
import { logEntry, requestDetail } from "../../observability/request-log-view.ts";


export const requestsRoute = (deps: Deps) =>
  new Elysia()
    .use(authPlugin(deps))
    .get(
      "/requests",
      async ({ query, auth }) => {
        const filters = parseRequestsQuery(query);
        // Read-your-writes: rows still queued from just-served requests are written first.
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        // Multi-instance: every instance's rows are PostgreSQL's (docs/scale-out.md).
        const { rows, hasMore } = deps.shared ? await deps.shared.logs.list(auth.project.id, filters) : deps.repos.requests.list(auth.project.id, filters);
        return { object: "list", data: rows.map(logEntry), has_more: hasMore, last_id: rows.at(-1)?.id ?? null };
      },
      { scope: "requests" },
    )
    .get(
      "/requests/:request_id",
      async ({ params, auth }) => {
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        const record = deps.shared ? await deps.shared.logs.get(auth.project.id, params.request_id) : deps.repos.requests.get(auth.project.id, params.request_id);
        if (!record) throw new GwError("not_found", `No request '${params.request_id}' in this project.`, { param: "request_id" });
        return requestDetail(record);
      },
      { scope: "requests" },
    );
