// gw's errors in Anthropic's envelope, {"type":"error","error":{"type","message"},"request_id"}, with
// gw's own status kept (docs/anthropic.md "Errors"); gw's code, param and category ride along in
// `error`, so a log or a support question can still name them.
import { isObject } from "../../lib/json.ts";
import type { GwError } from "../../errors/gw-error.ts";

/** gw's status as Anthropic's error type. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
      // Try again shortly: what Anthropic's clients do on overloaded_error.
      return "overloaded_error";
    case 504:
      return "timeout_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

interface GwEnvelope { message: string; code: string | null; param: string | null; category: string | null }

export function anthropicErrorBody(status: number, error: GwEnvelope, requestId: string | null) {
  return {
    type: "error",
    error: { type: anthropicErrorType(status), message: error.message, code: error.code, param: error.param, category: error.category },
    request_id: requestId,
  };
}

export const anthropicErrorOf = (error: GwError, requestId: string | null) =>
  anthropicErrorBody(error.status, { message: error.message, code: error.code, param: error.param, category: error.info.category }, requestId);

/** gw's envelope (docs/api.md "Errors") read back from a response body; null if it is not one. */
export function gwEnvelopeOf(body: unknown): GwEnvelope | null {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error) || typeof error.message !== "string") return null;
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  return { message: error.message, code: str(error.code), param: str(error.param), category: str(error.category) };
}
