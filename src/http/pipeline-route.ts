// The one handler behind /chat/completions, /responses and /messages: the chat pipeline behind the endpoint's
// codec (its body in, its answer and stream out), the error envelope, the Idempotency-Key. The
// request is cancelled when its client leaves or gw shuts down; it outlives Bun's idle timeout.
import type { AuthContext } from "../auth/api-keys.ts";
import type { GwError } from "../errors/gw-error.ts";
import { newTraceId } from "../lib/ids.ts";
import { SpanRecorder } from "../observability/trace.ts";
import { runChat, type ChatAnswer } from "../pipeline/index.ts";
import { cancel, newState, type BodyDecoder, type Endpoint, type RequestState } from "../pipeline/state.ts";
import type { OutEvent } from "../pipeline/stream-out.ts";
import type { Deps } from "../pipeline/deps.ts";
import { baseHeaders, errorResponse, jsonResponse } from "./context.ts";
import { withIdempotency } from "./idempotent.ts";
import { withKeepAlive } from "./sse.ts";

/** Bun's server as the routes see it: the peer's address, and the per-request idle timeout. */
export interface RouteServer {
  requestIP(request: Request): { address: string } | null;
  timeout?(request: Request, seconds: number): void;
}

export interface PipelineRouteContext {
  request: Request;
  requestId: string;
  auth: AuthContext;
  t0: number;
  authMs: number;
  /** The IP allowlists' refusal, answered by the guard stage (http/auth.ts). */
  addressRefusal: GwError | null;
  /** Bun's server (null under app.handle). */
  server?: RouteServer | null;
}

/** An endpoint's shape over the chat pipeline: its body decoded to chat's (none for chat), the
 * answer's JSON text and the event stream's response; an endpoint with an envelope of its own
 * (Anthropic's) also gives its errors and the headers its answers carry besides gw's. */
export interface EndpointCodec {
  decode?: BodyDecoder;
  json(state: RequestState, answer: ChatAnswer): string;
  stream(state: RequestState, events: AsyncIterable<OutEvent>, headers: Record<string, string>): Response;
  headers?(requestId: string): Record<string, string>;
  error?(error: GwError, requestId: string, headers: Record<string, string> | undefined): Response;
}

/** Bun's idleTimeout (at most 255 s) would cut a request waiting on its upstream; gw's own
 * deadlines bound that wait, so the socket gets the request's deadline plus a margin, or no idle
 * limit when that is past Bun's maximum. Streams then stay busy through keep-alive comments. */
function extendIdleTimeout(deps: Deps, server: RouteServer | null | undefined, request: Request): void {
  const seconds = Math.ceil(deps.config.requestTimeoutMs / 1000) + 5;
  server?.timeout?.(request, seconds > 255 ? 0 : seconds);
}

/** Registers the request as in flight and cancels it when its client leaves; the returned
 * function ends both (call it when the answer, or the stream's last byte, is out). The listener
 * is not removed (that cost as much as adding it): once ended, it does nothing. */
function track(deps: Deps, state: RequestState, request: Request): () => void {
  const done = deps.inFlight.add(state);
  const signal = request.signal;
  let live = true;
  if (signal.aborted) cancel(state, "client");
  else signal.addEventListener("abort", () => {
    if (live) cancel(state, "client");
  }, { once: true });
  return () => {
    live = false;
    done();
  };
}

/** A pipeline request's state, with the auth span the scope macro timed; tracked as in flight
 * and given the socket time its deadline needs. Call `untrack` when its last byte is out. */
export function beginRequest(
  deps: Deps, ctx: PipelineRouteContext, endpoint: Endpoint, bodyText: string | undefined, decodeBody?: BodyDecoder,
): { state: RequestState; untrack: () => void } {
  const { request, requestId, auth, t0 } = ctx;
  const spans = new SpanRecorder(t0);
  spans.add("authentication", 0, ctx.authMs, null);
  const state = newState({ requestId, traceId: newTraceId(), parentSpanId: null, auth, http: request, spans, t0, bodyText, endpoint, addressRefusal: ctx.addressRefusal, decodeBody });
  extendIdleTimeout(deps, ctx.server, request);
  return { state, untrack: track(deps, state, request) };
}

export function servePipeline(deps: Deps, ctx: PipelineRouteContext, endpoint: "chat.completions" | "responses" | "messages", codec: EndpointCodec): Promise<Response> {
  const { request, requestId, auth } = ctx;
  return withIdempotency(deps, { request, requestId, auth, addressRefusal: ctx.addressRefusal }, endpoint, async (bodyText) => {
    const { state, untrack } = beginRequest(deps, ctx, endpoint, bodyText, codec.decode);
    let outcome: Awaited<ReturnType<typeof runChat>>;
    try {
      outcome = await runChat(deps, state);
    } catch (err) {
      untrack();
      throw err;
    }
    if (outcome.kind === "stream") {
      // The client's abort (tracked above) stops the upstream; the stream stays in flight until
      // its last byte.
      const res = codec.stream(state, outcome.events, { ...baseHeaders(requestId), ...outcome.headers, ...codec.headers?.(requestId) });
      return withKeepAlive(res, deps.config.sseKeepAliveMs, untrack);
    }
    untrack();
    if (outcome.kind === "error") {
      return codec.error ? codec.error(outcome.error, requestId, outcome.headers) : errorResponse(outcome.error, requestId, outcome.headers);
    }
    const own = codec.headers?.(requestId);
    return jsonResponse(codec.json(state, outcome.answer), requestId, own ? { ...outcome.headers, ...own } : outcome.headers);
  });
}
