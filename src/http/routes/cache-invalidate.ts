// POST /cache/invalidate (docs/api.md "Cache invalidation"): removes the calling key's project's cached
// answers by tags (any of them) or all of them, from SQLite, memory and (through the store's
// removal listeners) the semantic index. Scope `cache`.
import { Elysia } from "elysia";
import { invalidateAnswers } from "../../pipeline/cache-store.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { parseCacheInvalidate } from "../../schema/cache-invalidate.ts";
import { readBodyText } from "../../schema/validate.ts";
import { authPlugin } from "../auth.ts";
import { jsonResponse } from "../context.ts";
import { validationErrorResponse } from "../validation-error.ts";

export const cacheInvalidateRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/cache/invalidate",
    async ({ request, requestId, auth }) => {
      const parsed = parseCacheInvalidate(await readBodyText(request));
      if (!parsed.ok) return validationErrorResponse(parsed, requestId);
      const deleted = await invalidateAnswers(deps, auth.project.id, parsed.value);
      // Counts only: tags are the caller's labels and may say what the answers were about.
      deps.logger.info(
        { request_id: requestId, project_id: auth.project.id, all: "all" in parsed.value, tags: "tags" in parsed.value ? parsed.value.tags.length : 0, deleted },
        "response cache invalidated",
      );
      return jsonResponse(JSON.stringify({ object: "cache.invalidation", deleted }), requestId);
    },
    // The body is read raw: a body that is not JSON must answer 422 here, not the 400 of the parser.
    { scope: "cache", parse: "none" },
  );
