// Maps an OpenAI-compatible error response to a failure class (decides fallback) and public code.
import { isObject } from "../../lib/json.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { retryAfterSeconds } from "../retry-after.ts";

function upstreamMessage(body: string): { message: string | null; code: string | null } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isObject(parsed) && isObject(parsed.error)) {
      const { message, code } = parsed.error;
      return { message: typeof message === "string" ? message : null, code: typeof code === "string" ? code : null };
    }
  } catch {
    // Not JSON: nothing more to learn from it.
  }
  return { message: null, code: null };
}

export function parseError(status: number, body: string, headers: Headers, provider: string): UpstreamFailure {
  const { message, code } = upstreamMessage(body);
  if (status === 429) {
    return UpstreamFailure.fromStatus(status, "rate_limit", `${provider} rate limit reached (HTTP 429).`, { retryAfter: retryAfterSeconds(headers) });
  }
  if (status === 401 || status === 403) {
    return UpstreamFailure.fromStatus(status, "credential", `${provider} rejected gw's credentials (HTTP ${status}).`);
  }
  if (status === 404) return UpstreamFailure.fromStatus(status, "model_gone", `${provider} does not serve this model (HTTP 404).`);
  if (status === 408 || status === 504) return UpstreamFailure.fromStatus(status, "timeout", `${provider} timed out (HTTP ${status}).`);
  if (status === 400 || status === 413 || status === 422) {
    const kind = code === "context_length_exceeded" ? "context_length" : "caller";
    const detail = message ? `Provider said: ${message}` : undefined;
    return UpstreamFailure.fromStatus(status, kind, `${provider} rejected the request (HTTP ${status}).`, { detail });
  }
  if (status === 503 || status === 529) {
    return UpstreamFailure.fromStatus(status, "transient", `${provider} is unavailable (HTTP ${status}).`, { retryAfter: retryAfterSeconds(headers) });
  }
  return UpstreamFailure.fromStatus(status, "transient", `${provider} failed (HTTP ${status}).`, { publicCode: "upstream_error" });
}
