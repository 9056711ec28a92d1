// POST /embeddings (docs/api.md "Embeddings"): hands the request to the embeddings pipeline and writes
// its outcome as JSON or as an error envelope. Scope `embeddings`. Cancelled like
// chat when the client leaves or gw shuts down (pipeline/in-flight.ts).
import { Elysia } from "elysia";
import { newTraceId } from "../../lib/ids.ts";
import { SpanRecorder } from "../../observability/trace.ts";
import { runEmbeddings } from "../../pipeline/embed/index.ts";
import { newState } from "../../pipeline/state.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { authPlugin } from "../auth.ts";
import { errorResponse, jsonResponse } from "../context.ts";
import { withIdempotency } from "../idempotent.ts";
import { extendIdleTimeout, track } from "../pipeline-route.ts";

export const embeddingsRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/embeddings",
    ({ request, requestId, auth, t0, authMs, server, addressRefusal }) =>
      withIdempotency(deps, { request, requestId, auth, addressRefusal }, "embeddings", async (bodyText) => {
        const spans = new SpanRecorder(t0);
        spans.add("authentication", 0, authMs, null);
        const state = newState({
          requestId, traceId: newTraceId(), parentSpanId: null, auth, http: request, spans, t0, endpoint: "embeddings", bodyText,
          addressRefusal,
        });
        extendIdleTimeout(deps, server, request);
        const untrack = track(deps, state, request);
        const outcome = await runEmbeddings(deps, state).finally(untrack);
        if (outcome.kind === "error") return errorResponse(outcome.error, requestId, outcome.headers);
        return jsonResponse(outcome.body, requestId, outcome.headers);
      }),
    { scope: "embeddings", parse: "none" },
  );
