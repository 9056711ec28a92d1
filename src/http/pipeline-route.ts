// The one handler behind /chat/completions and /responses: a request state for the endpoint, the
// chat pipeline, and its outcome written as JSON, an event stream (the endpoint's encoder), or the
// error envelope, all under the request's Idempotency-Key.
import type { AuthContext } from "../auth/api-keys.ts";
import { newTraceId } from "../lib/ids.ts";
import { SpanRecorder } from "../observability/trace.ts";
import { runChat } from "../pipeline/index.ts";
import { cancel, newState, type RequestState } from "../pipeline/state.ts";
import type { OutEvent } from "../pipeline/stream-out.ts";
import type { Deps } from "../deps.ts";
import { baseHeaders, errorResponse, jsonResponse } from "./context.ts";
import { withIdempotency } from "./idempotent.ts";

export interface PipelineRouteContext {
  request: Request;
  requestId: string;
  auth: AuthContext;
  t0: number;
  authMs: number;
  /** Bun's server, for the socket peer's address (null under app.handle). */
  server?: { requestIP(request: Request): { address: string } | null } | null;
}

type StreamEncoder = (state: RequestState, events: AsyncIterable<OutEvent>, headers: Record<string, string>) => Response;

export function servePipeline(deps: Deps, ctx: PipelineRouteContext, endpoint: "chat.completions" | "responses", encode: StreamEncoder): Promise<Response> {
  const { request, requestId, auth, t0 } = ctx;
  return withIdempotency(deps, { request, requestId, auth }, endpoint, async (bodyText) => {
    const spans = new SpanRecorder(t0);
    spans.add("authentication", 0, ctx.authMs, null);
    const peerAddress = ctx.server?.requestIP(request)?.address ?? null;
    const state = newState({ requestId, traceId: newTraceId(), parentSpanId: null, auth, http: request, spans, t0, bodyText, endpoint, peerAddress });
    const outcome = await runChat(deps, state);
    if (outcome.kind === "stream") {
      // A client that disconnects mid-stream cancels the body, which aborts the upstream call.
      request.signal.addEventListener("abort", () => cancel(state), { once: true });
      return encode(state, outcome.events, { ...baseHeaders(requestId), ...outcome.headers });
    }
    if (outcome.kind === "error") return errorResponse(outcome.error, requestId, outcome.headers);
    return jsonResponse(outcome.body, requestId, outcome.headers);
  });
}
