// POST /chat/completions (gateway-api.md 4.4): hands the request to the chat pipeline and writes
// its outcome as JSON, as an SSE stream, or as an error envelope.
import { Elysia } from "elysia";
import { newTraceId } from "../../lib/ids.ts";
import { SpanRecorder } from "../../observability/trace.ts";
import { runChat } from "../../pipeline/index.ts";
import { cancel, newState } from "../../pipeline/state.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../auth.ts";
import { baseHeaders, errorResponse, jsonResponse } from "../context.ts";
import { withIdempotency } from "../idempotent.ts";
import { sseResponse } from "../sse.ts";

export const chatCompletionsRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/chat/completions",
    ({ request, requestId, auth, t0, authMs }) =>
      withIdempotency(deps, { request, requestId, auth }, "chat.completions", async (bodyText) => {
        const spans = new SpanRecorder(t0);
        spans.add("auth", 0, authMs, null);
        const state = newState({
          requestId, traceId: newTraceId(), parentSpanId: null, auth, http: request, spans, t0, bodyText,
        });
        const outcome = await runChat(deps, state);
        if (outcome.kind === "stream") {
          // A client that disconnects mid-stream cancels the body, which aborts the upstream call.
          request.signal.addEventListener("abort", () => cancel(state), { once: true });
          return sseResponse(outcome.events, { ...baseHeaders(requestId), ...outcome.headers });
        }
        if (outcome.kind === "error") return errorResponse(outcome.error, requestId, outcome.headers);
        return jsonResponse(outcome.body, requestId, outcome.headers);
      }),
    { scope: "chat", parse: "none" },
  );
