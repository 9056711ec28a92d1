// POST /messages and /messages/count_tokens (docs/anthropic.md): Anthropic's Messages API over the
// chat pipeline. Keys come as x-api-key or Bearer; every answer, errors included, is in Anthropic's
// shape with a request-id header, so errors are caught here rather than by the app's envelope.
import { Elysia } from "elysia";
import { requireScope, type AuthContext } from "../../auth/api-keys.ts";
import { addressRefusal } from "../../auth/ip-allowlist.ts";
import { toGwError, type GwError } from "../../errors/gw-error.ts";
import { countTokens } from "../../ingress/messages/count-tokens.ts";
import { anthropicErrorBody, anthropicErrorOf, gwEnvelopeOf } from "../../ingress/messages/errors.ts";
import { messagesToChatBody } from "../../ingress/messages/request.ts";
import { messageBody } from "../../ingress/messages/response.ts";
import { messagesStream } from "../../ingress/messages/stream.ts";
import type { Deps } from "../../pipeline/deps.ts";
import { parseJsonObject, readBodyText } from "../../schema/validate.ts";
import { anthropicSseResponse } from "../anthropic-sse.ts";
import { authenticateRequest } from "../auth.ts";
import { jsonResponse, requestIdPlugin } from "../context.ts";
import { servePipeline, type EndpointCodec, type PipelineRouteContext, type RouteServer } from "../pipeline-route.ts";

/** Anthropic's name for the request id header, which its SDKs read (`_request_id`). */
const REQUEST_ID = "request-id";

function errorOut(error: GwError, requestId: string, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = { ...headers, [REQUEST_ID]: requestId };
  if (error.retryAfter !== undefined) extra["retry-after"] = String(error.retryAfter);
  return jsonResponse(JSON.stringify(anthropicErrorOf(error, requestId)), requestId, extra, error.status);
}

function failed(deps: Deps, err: unknown, requestId: string): Response {
  const error = toGwError(err);
  if (error.code === "internal_error") deps.logger.error({ err: error.cause ?? err, request_id: requestId }, "unhandled error");
  return errorOut(error, requestId);
}

/** What http/auth.ts's scope macro does for the other routes, here so that its errors can leave
 * in Anthropic's envelope: the key, the chat scope, the IP allowlists. */
type Authorized = Omit<PipelineRouteContext, "request" | "requestId" | "server">;

/** Synchronous on single-node; a promise only for a key the multi-instance mirror lacks (http/auth.ts). */
function authorize(deps: Deps, request: Request, requestId: string, server: RouteServer | null): Authorized | Promise<Authorized> {
  const t0 = performance.now();
  const found = authenticateRequest(deps, request);
  if (found instanceof Promise) return found.then((auth) => admit(deps, auth, t0, request, requestId, server));
  return admit(deps, found, t0, request, requestId, server);
}

function admit(deps: Deps, auth: AuthContext, t0: number, request: Request, requestId: string, server: RouteServer | null): Authorized {
  requireScope(auth, "chat");
  const lists = auth.rules.ipAllowlists;
  const refusal = lists.project || lists.key
    ? addressRefusal(lists, () => server?.requestIP(request)?.address ?? null, request.headers.get("x-forwarded-for"), deps.config.trustedProxies)
    : null;
  if (refusal) deps.eventSources.security.ipBlocked(auth.project.id, requestId, auth.key.id);
  return { auth, t0, authMs: performance.now() - t0, addressRefusal: refusal };
}

/** An Idempotency-Key refusal leaves idempotent.ts in gw's envelope: rewritten, status kept. */
async function inAnthropicShape(res: Response, requestId: string): Promise<Response> {
  if (res.status < 400 || res.headers.has(REQUEST_ID)) return res;
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const error = gwEnvelopeOf(body);
  const headers = new Headers(res.headers);
  headers.set(REQUEST_ID, requestId);
  if (!error) return new Response(text, { status: res.status, headers });
  return new Response(JSON.stringify(anthropicErrorBody(res.status, error, requestId)), { status: res.status, headers });
}

/** The Messages body becomes a chat body in the parse stage; answers, streams and errors leave in
 * Anthropic's shapes, each with its request-id header. */
const messages: EndpointCodec = {
  decode: messagesToChatBody,
  json: (state, answer) => messageBody(state, answer.completion, answer.gw),
  stream: (state, events, headers) => anthropicSseResponse(messagesStream(state, events), headers),
  headers: (requestId) => ({ [REQUEST_ID]: requestId }),
  error: (error, requestId, headers) => errorOut(error, requestId, headers),
};

async function serveMessages(deps: Deps, request: Request, requestId: string, server: RouteServer | null): Promise<Response> {
  try {
    const authorized = authorize(deps, request, requestId, server);
    const ctx: PipelineRouteContext = { request, requestId, server, ...(authorized instanceof Promise ? await authorized : authorized) };
    return await inAnthropicShape(await servePipeline(deps, ctx, "messages", messages), requestId);
  } catch (err) {
    return failed(deps, err, requestId);
  }
}

async function serveCountTokens(deps: Deps, request: Request, requestId: string, server: RouteServer | null): Promise<Response> {
  try {
    const authorized = authorize(deps, request, requestId, server);
    const { addressRefusal: refusal } = authorized instanceof Promise ? await authorized : authorized;
    if (refusal) throw refusal;
    const counted = countTokens(parseJsonObject(await readBodyText(request)));
    return jsonResponse(JSON.stringify(counted), requestId, { [REQUEST_ID]: requestId });
  } catch (err) {
    return failed(deps, err, requestId);
  }
}

export const messagesRoute = (deps: Deps) =>
  new Elysia()
    .use(requestIdPlugin)
    // Destructured, as in chat-completions.ts: a whole context makes Elysia parse cookies per request.
    .post("/messages", ({ request, requestId, server }) => serveMessages(deps, request, requestId, server), { parse: "none" })
    .post("/messages/count_tokens", ({ request, requestId, server }) => serveCountTokens(deps, request, requestId, server), { parse: "none" });
