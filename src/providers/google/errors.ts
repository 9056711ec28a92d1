// Maps a Google API error ({error: {code, message, status, details}}, cloud.google.com/apis/design/errors)
// to a failure class (decides fallback) and public code.
import { isObject } from "../../lib/json.ts";
import type { UpstreamFailure } from "../../canonical/failure.ts";
import { classifyStatus, type StatusDialect } from "../classify-status.ts";

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

const DIALECT: StatusDialect = {
  credentialStatuses: [401, 403],
  unavailableStatuses: [503],
  rateLimitWords: "rate limit or quota reached",
  credentialWords: "rejected gw's credentials",
  unavailableWords: "is unavailable",
};

/** The upstream's message travels in `detail` (returned to the caller, never logged) only where it
 * is about the caller's request; credential and quota texts name gw's own Google project. */
export function parseError(status: number, body: string, headers: Headers, provider: string): UpstreamFailure {
  const e = readGoogleError(body);
  return classifyStatus(status, headers, provider, DIALECT, {
    message: e.message,
    rateLimited: e.status === "RESOURCE_EXHAUSTED",
    retryAfter: e.retryDelay,
    // Google answers a bad API key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
    credential: e.reasons.includes("API_KEY_INVALID") || /API key not valid/i.test(e.message ?? ""),
    // FAILED_PRECONDITION is about gw's account (billing off, region not served), not the request:
    // another provider may well answer, so it falls back like a credential problem.
    accountUnserved: e.status === "FAILED_PRECONDITION",
    contextLength: TOKEN_LIMIT.test(e.message ?? ""),
  });
}
