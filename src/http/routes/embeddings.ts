// POST /embeddings (docs/api.md "Embeddings"): hands the request to the embeddings pipeline and writes
// its outcome as JSON or as an error envelope. Scope `embeddings`. Cancelled like
// chat when the client leaves or gw shuts down (pipeline/in-flight.ts).
import { Elysia } from "elysia";
import { runEmbeddings } from "../../pipeline/embed/index.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { errorResponse, jsonResponse } from "../context.ts";
import { withIdempotency } from "../idempotent.ts";
import { beginRequest } from "../pipeline-route.ts";

export const embeddingsRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/embeddings",
    // Destructured, as in chat-completions.ts: a whole context makes Elysia parse cookies per request.
    ({ request, requestId, auth, t0, authMs, addressRefusal, server }) => {
      const ctx = { request, requestId, auth, t0, authMs, addressRefusal, server };
      return withIdempotency(deps, ctx, "embeddings", async (bodyText) => {
        const { state, untrack } = beginRequest(deps, ctx, "embeddings", bodyText);
        const outcome = await runEmbeddings(deps, state).finally(untrack);
        if (outcome.kind === "error") return errorResponse(outcome.error, requestId, outcome.headers);
        return jsonResponse(outcome.body, requestId, outcome.headers);
      });
    },
    { scope: "embeddings", parse: "none" },
  );
