// CORS for browser clients on every path under /v1 (docs/api.md "CORS"). Off unless GW_CORS_ORIGINS
// is set: then no hook is registered at all. On, a request without an allowed Origin costs one header
// read and a set lookup; an allowed one gets its headers through Elysia's `set.headers`.
import { Elysia } from "elysia";
import { API_BASE_PATH } from "../config/constants.ts";
import type { Config } from "../config/env.ts";
import { newRequestId } from "../lib/ids.ts";
import { baseHeaders } from "./context.ts";

/** Every response header gw sends that a page may want to read (docs/api.md "Response headers");
 * `request-id` is the Messages API's, `x-request-id` a proxy's in front of gw. */
export const CORS_EXPOSED_HEADERS = [
  "x-gw-api-version", "x-gw-request-id", "x-gw-model", "x-gw-provider", "x-gw-cache",
  "idempotent-replayed", "retry-after", "request-id", "x-request-id",
  "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens",
] as const;

/** Request headers gw reads, and those the openai and Anthropic SDKs send from a browser. */
export const CORS_ALLOWED_HEADERS = [
  "authorization", "content-type", "idempotency-key", "x-api-key",
  "x-gw-session", "x-gw-trace-id", "x-gw-parent-span", "x-gw-cache", "x-gw-cache-scope",
  "anthropic-version", "anthropic-beta", "openai-organization", "openai-project",
] as const;
/** Families whose members change with SDK versions (x-stainless-retry-count, anthropic-dangerous-...). */
const ALLOWED_PREFIXES = ["x-gw-", "x-stainless-", "anthropic-"];

export const CORS_ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE";
/** Seconds a browser may reuse a preflight's answer (Chromium caps it at 7200). */
export const CORS_MAX_AGE = "7200";

const EXPOSED = CORS_EXPOSED_HEADERS.join(", ");
const ALLOWED = new Set<string>(CORS_ALLOWED_HEADERS);

/** The allowed list, plus those asked for that belong to an allowed family; any other is left out,
 * so the browser refuses the request. */
function allowHeaders(asked: string | null): string {
  const names: string[] = [...CORS_ALLOWED_HEADERS];
  for (const raw of asked?.split(",") ?? []) {
    const name = raw.trim().toLowerCase();
    if (!ALLOWED.has(name) && ALLOWED_PREFIXES.some((p) => name.startsWith(p)) && !names.includes(name)) names.push(name);
  }
  return names.join(", ");
}

function isApiPath(url: string): boolean {
  const path = url.indexOf("/", url.indexOf("//") + 2);
  return path > 0 && url.startsWith(`${API_BASE_PATH}/`, path);
}

function preflight(allowOrigin: string, asked: string | null): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...baseHeaders(newRequestId()),
      "access-control-allow-origin": allowOrigin,
      "access-control-allow-methods": CORS_ALLOWED_METHODS,
      "access-control-allow-headers": allowHeaders(asked),
      "access-control-max-age": CORS_MAX_AGE,
      vary: "Origin, Access-Control-Request-Headers",
    },
  });
}

/** Registered first in the app, so it answers preflights before any route, auth or drain check. */
export function corsPlugin(origins: Config["corsOrigins"]) {
  const plugin = new Elysia();
  if (origins === null) return plugin;
  const allowed = origins === "*" ? null : new Set(origins);
  return plugin.onRequest(({ request, set }) => {
    const origin = request.headers.get("origin");
    if (origin === null || (allowed !== null && !allowed.has(origin)) || !isApiPath(request.url)) return;
    const allowOrigin = allowed === null ? "*" : origin;
    if (request.method === "OPTIONS") return preflight(allowOrigin, request.headers.get("access-control-request-headers"));
    set.headers["access-control-allow-origin"] = allowOrigin;
    set.headers["access-control-expose-headers"] = EXPOSED;
    if (allowed !== null) set.headers.vary = "Origin";
  });
}
