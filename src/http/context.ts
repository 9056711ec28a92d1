// Every response carries X-Gw-Api-Version and X-Gw-Request-Id; every error leaves in the envelope of
// docs/api.md "Errors". The hot route builds its Response with every header itself: headers on
// `set.headers` would make Elysia merge them into every response.
import { Elysia } from "elysia";
import { API_VERSION } from "../config/constants.ts";
import { GwError, toGwError } from "../errors/gw-error.ts";
import { newRequestId } from "../lib/ids.ts";
import type { Logger } from "../observability/logger.ts";
import { securityHeadersForUrl } from "../dashboard/security-headers.ts";

export const REQUEST_ID_HEADER = "x-gw-request-id";

/** The two headers every response carries. */
export const baseHeaders = (requestId: string): Record<string, string> => ({
  "x-gw-api-version": API_VERSION,
  [REQUEST_ID_HEADER]: requestId,
});

const NO_HEADERS: Record<string, string> = {};

/** Copied natively per answer: Bun converts a headers object property by property (~1 µs more). */
const JSON_HEAD = new Headers({ "content-type": "application/json", "x-gw-api-version": API_VERSION });

export function jsonResponse(body: string, requestId: string, extra: Record<string, string> = NO_HEADERS, status = 200): Response {
  const headers = new Headers(JSON_HEAD);
  headers.append(REQUEST_ID_HEADER, requestId);
  for (const name in extra) {
    // As the object literal these were once written to: one of its three names is overwritten
    // in place, any other added in order.
    if (name === REQUEST_ID_HEADER || name === "content-type" || name === "x-gw-api-version") headers.set(name, extra[name]!);
    else headers.append(name, extra[name]!);
  }
  return new Response(body, { status, headers });
}

/** The error envelope as a complete response, Retry-After included when the error has one. */
export function errorResponse(error: GwError, requestId: string, extra: Record<string, string> = {}): Response {
  const headers = error.retryAfter === undefined ? extra : { ...extra, "retry-after": String(error.retryAfter) };
  return jsonResponse(JSON.stringify(error.toBody(requestId)), requestId, headers, error.status);
}

function toGw(code: string | number, error: unknown, request: Request, logger: Logger, requestId: string): GwError {
  if (error instanceof GwError) return error;
  if (code === "NOT_FOUND") return new GwError("not_found", `Unknown path: ${request.method} ${new URL(request.url).pathname}`);
  if (code === "PARSE" || code === "VALIDATION") return new GwError("invalid_request", "The request could not be parsed.");
  // The multi-instance mode's PostgreSQL out of reach, from any route: 503, logged as such.
  if (error instanceof Error && error.name === "StoreUnavailable") {
    logger.warn({ err: error, request_id: requestId }, "PostgreSQL unavailable: answered 503");
    return toGwError(error);
  }
  logger.error({ err: error, request_id: requestId }, "unhandled error");
  return new GwError("internal_error", "The gateway failed to process the request.");
}

/** Mints the request id; named, so every plugin that uses it shares one instance. */
export const requestIdPlugin = new Elysia({ name: "gw-request-id" }).derive({ as: "global" }, () => ({
  requestId: newRequestId(),
}));

export const contextPlugin = (logger: Logger) =>
  new Elysia({ name: "gw-context" })
    .use(requestIdPlugin)
    // Handlers that return plain objects get the headers here; Responses built by gw carry them.
    .onAfterHandle({ as: "global" }, ({ response, set, requestId }) => {
      if (!(response instanceof Response)) Object.assign(set.headers, baseHeaders(requestId));
    })
    .onError({ as: "global" }, (ctx) => {
      // A request that matched no route never ran derive, so it gets its id here.
      const derived = (ctx as { requestId?: unknown }).requestId;
      const requestId = typeof derived === "string" ? derived : newRequestId();
      // Dashboard answers carry their security headers on errors too (docs/dashboard.md "Security headers").
      return errorResponse(toGw(ctx.code, ctx.error, ctx.request, logger, requestId), requestId, securityHeadersForUrl(ctx.request.url));
    });
