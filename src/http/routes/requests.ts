// GET /requests and GET /requests/{id} (docs/api.md "Request log", "Request detail"): the calling key's project only.
import { Elysia } from "elysia";
import { GwError } from "../../errors/gw-error.ts";
import { parseRequestsQuery } from "../../schema/requests.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { logEntry, requestDetail } from "../serializers/request-log.ts";

/** Read-your-writes waits at most this long for queued rows; then the answer is what is on disk
 * (a log that cannot be written must not hang reads; docs/availability.md "Storage"). */
export const READ_DRAIN_LIMIT_MS = 2_000;

export const requestsRoute = (deps: Deps) =>
  new Elysia()
    .use(authPlugin(deps))
    .get(
      "/requests",
      async ({ query, auth }) => {
        const filters = parseRequestsQuery(query);
        // Read-your-writes: rows still queued from just-served requests are written first.
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        const { rows, hasMore } = deps.repos.requests.list(auth.project.id, filters);
        return { object: "list", data: rows.map(logEntry), has_more: hasMore, last_id: rows.at(-1)?.id ?? null };
      },
      { scope: "requests" },
    )
    .get(
      "/requests/:request_id",
      async ({ params, auth }) => {
        if (deps.logWriter.pending > 0) await deps.logWriter.drainWithin(READ_DRAIN_LIMIT_MS);
        const record = deps.repos.requests.get(auth.project.id, params.request_id);
        if (!record) throw new GwError("not_found", `No request '${params.request_id}' in this project.`, { param: "request_id" });
        return requestDetail(record);
      },
      { scope: "requests" },
    );
