// Maps a Google API error ({error: {code, message, status, details}}, cloud.google.com/apis/design/errors)
// to a failure class (decides fallback) and public code.
import { isObject } from "../../lib/json.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { retryAfterSeconds } from "../retry-after.ts";

interface GoogleError {
  message: string | null;
  status: string | null;
  /** ErrorInfo.reason values, e.g. API_KEY_INVALID. */
  reasons: string[];
  /** RetryInfo.retryDelay in seconds, e.g. "26s" -> 26. */
  retryDelay?: number;
}

export function readGoogleError(body: string): GoogleError {
  const out: GoogleError = { message: null, status: null, reasons: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return out; // not JSON (a proxy's HTML page): nothing more to learn
  }
  // Google sends an object; some front ends wrap it in a one-element array.
  const root = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!isObject(root) || !isObject(root.error)) return out;
  const { message, status, details } = root.error;
  if (typeof message === "string") out.message = message;
  if (typeof status === "string") out.status = status;
  for (const d of Array.isArray(details) ? details : []) {
    if (!isObject(d)) continue;
    if (typeof d.reason === "string") out.reasons.push(d.reason);
    const delay = typeof d.retryDelay === "string" ? Number.parseFloat(d.retryDelay) : Number.NaN;
    if (Number.isFinite(delay)) out.retryDelay = Math.max(0, Math.ceil(delay));
  }
  return out;
}

const TOKEN_LIMIT = /token count|exceeds the maximum number of tokens|too many tokens|context (window|length)/i;

/** The upstream's message travels in `detail` (returned to the caller, never logged) only where it
 * is about the caller's request; credential and quota texts name gw's own Google project. */
export function parseError(status: number, body: string, headers: Headers, provider: string): UpstreamFailure {
  const e = readGoogleError(body);
  const detail = e.message ? `Provider said: ${e.message}` : undefined;
  if (status === 429 || e.status === "RESOURCE_EXHAUSTED") {
    const retryAfter = retryAfterSeconds(headers) ?? e.retryDelay;
    return UpstreamFailure.fromStatus(status, "rate_limit", `${provider} rate limit or quota reached (HTTP ${status}).`, { retryAfter });
  }
  // Google answers a bad API key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
  const badKey = e.reasons.includes("API_KEY_INVALID") || /API key not valid/i.test(e.message ?? "");
  if (status === 401 || status === 403 || badKey) {
    return UpstreamFailure.fromStatus(status, "credential", `${provider} rejected gw's credentials (HTTP ${status}).`);
  }
  if (status === 404) return UpstreamFailure.fromStatus(status, "model_gone", `${provider} does not serve this model (HTTP 404).`);
  if (status === 408 || status === 504) return UpstreamFailure.fromStatus(status, "timeout", `${provider} timed out (HTTP ${status}).`);
  // FAILED_PRECONDITION is about gw's account (billing off, region not served), not the request:
  // another provider may well answer, so it falls back like a credential problem.
  if (e.status === "FAILED_PRECONDITION") {
    return UpstreamFailure.fromStatus(status, "credential", `${provider} cannot serve gw's account (HTTP ${status}).`);
  }
  if (status === 400 || status === 413 || status === 422) {
    const kind = TOKEN_LIMIT.test(e.message ?? "") ? "context_length" : "caller";
    return UpstreamFailure.fromStatus(status, kind, `${provider} rejected the request (HTTP ${status}).`, { detail });
  }
  if (status === 503) return UpstreamFailure.fromStatus(status, "transient", `${provider} is unavailable (HTTP 503).`, { retryAfter: retryAfterSeconds(headers) });
  return UpstreamFailure.fromStatus(status, "transient", `${provider} failed (HTTP ${status}).`, { publicCode: "upstream_error" });
}
