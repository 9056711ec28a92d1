// POST /chat/completions (gateway-api.md 4.4): hands the request to the chat pipeline and writes
// its outcome as JSON, as an SSE stream, or as an error envelope.
import { Elysia } from "elysia";
import { newTraceId } from "../../lib/ids.ts";
import { SpanRecorder } from "../../observability/trace.ts";
import { runChat } from "../../pipeline/index.ts";
import { newState } from "../../pipeline/state.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../auth.ts";
import { errorResponse, requestIdOf } from "../context.ts";
import { sseResponse } from "../sse.ts";

export const chatCompletionsRoute = (deps: Deps) =>
  new Elysia().use(authPlugin(deps)).post(
    "/chat/completions",
    async ({ request, set, auth, t0, authMs }) => {
      const spans = new SpanRecorder(t0);
      spans.add("auth", 0, authMs, null);
      const state = newState({
        requestId: requestIdOf(set.headers), traceId: newTraceId(), parentSpanId: null, auth, http: request, spans, t0,
      });
      const outcome = await runChat(deps, state);
      Object.assign(set.headers, outcome.headers);
      if (outcome.kind === "stream") {
        // A client that disconnects mid-stream cancels the body, which aborts the upstream call.
        request.signal.addEventListener("abort", () => state.abort.abort(), { once: true });
        return sseResponse(outcome.events, outcome.headers);
      }
      if (outcome.kind === "error") {
        set.status = outcome.error.status;
        return errorResponse(outcome.error, set.headers);
      }
      return new Response(outcome.body, { headers: { "content-type": "application/json" } });
    },
    { scope: "chat", parse: "none" },
  );
