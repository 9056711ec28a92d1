// Maps Anthropic error responses ({type:"error", error:{type, message}}), before and during a
// stream, to a failure class (decides fallback) and public code. Anthropic API "Errors" page.
import { isObject } from "../../lib/json.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { retryAfterSeconds } from "../retry-after.ts";

export interface AnthropicError { type: string | null; message: string | null }

export function errorOf(body: string): AnthropicError {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed) && isObject(parsed.error)) {
      const { type, message } = parsed.error;
      return { type: typeof type === "string" ? type : null, message: typeof message === "string" ? message : null };
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone decides.
  }
  return { type: null, message: null };
}

/** Anthropic reports an over-long prompt as a plain invalid_request_error; only the message tells. */
const CONTEXT_LENGTH = /prompt is too long|exceed(s|ed)? (the )?context (window|limit)|context length/i;
/** An exhausted account is gw's problem, not the caller's: another provider may still answer. */
const BILLING = /credit balance/i;

export function parseError(status: number, body: string, headers: Headers, provider: string): UpstreamFailure {
  const { type, message } = errorOf(body);
  if (status === 429) {
    return UpstreamFailure.fromStatus(status, "rate_limit", `${provider} rate limit reached (HTTP 429).`, { retryAfter: retryAfterSeconds(headers) });
  }
  if (status === 401 || status === 403 || status === 402 || (status === 400 && message && BILLING.test(message))) {
    return UpstreamFailure.fromStatus(status, "credential", `${provider} rejected gw's credentials or account (HTTP ${status}).`);
  }
  if (status === 404) return UpstreamFailure.fromStatus(status, "model_gone", `${provider} does not serve this model (HTTP 404).`);
  if (status === 408 || status === 504) return UpstreamFailure.fromStatus(status, "timeout", `${provider} timed out (HTTP ${status}).`);
  if (status === 400 || status === 413 || status === 422) {
    // Only caller faults carry the upstream's words back: they explain the caller's own request.
    const kind = message && CONTEXT_LENGTH.test(message) ? "context_length" : "caller";
    const detail = message ? `Provider said: ${message}` : undefined;
    return UpstreamFailure.fromStatus(status, kind, `${provider} rejected the request (HTTP ${status}).`, { detail });
  }
  if (status === 503 || status === 529 || type === "overloaded_error") {
    return UpstreamFailure.fromStatus(status, "transient", `${provider} is overloaded (HTTP ${status}).`, { retryAfter: retryAfterSeconds(headers) });
  }
  return UpstreamFailure.fromStatus(status, "transient", `${provider} failed (HTTP ${status}).`, { publicCode: "upstream_error" });
}

/** An `event: error` after the 200: overloaded is unavailability; anything else an upstream error. */
export function streamError(data: string, provider: string): UpstreamFailure {
  const { type } = errorOf(data);
  if (type === "overloaded_error") {
    return new UpstreamFailure({ failureClass: "transient", message: `${provider} became overloaded mid-stream.`, upstreamStatus: 200 });
  }
  return UpstreamFailure.badBody(`${provider} reported an error mid-stream (${type ?? "unknown"}).`);
}
