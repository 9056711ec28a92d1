// `trace.error` for failed requests (docs/api.md "Request detail"): the primary error, its likely root cause,
// the step that failed and how to recover.
import type { ErrorCode } from "../errors/codes.ts";
import type { GwError } from "../errors/gw-error.ts";
import type { RequestState } from "./state.ts";

const RECOVERY: Partial<Record<ErrorCode, string>> = {
  invalid_request: "Fix the request as the error message says; retrying unchanged fails again.",
  blocked_by_policy: "Remove the content the project policy blocks, or change the policy.",
  invalid_api_key: "Send a valid, unrevoked key as 'Authorization: Bearer <key>'.",
  budget_exceeded: "Raise the project budget or wait for the next budget period.",
  insufficient_credits: "Add credits to the project.",
  plan_limit: "Upgrade the plan or wait for the next month.",
  permission_denied: "Use a key that has the required scope.",
  model_not_found: "Use a model id or routing profile from GET /models.",
  conflict: "Wait for the first request with this Idempotency-Key to finish; if its result was not kept, send a new key.",
  idempotency_mismatch: "Use a new Idempotency-Key for a different request; a key replays only the request it was first used with.",
  rate_limited: "Retry after the Retry-After interval, or lower the request rate.",
  upstream_error: "Retry later; gw already tried every eligible fallback.",
  no_model_available: "Relax constraints (max_cost, capabilities) or enable more providers.",
  provider_unavailable: "Retry later or enable more providers for fallback.",
  timeout: "Retry, or lower max_tokens so the answer arrives sooner.",
};

export function errorTrace(state: RequestState, error: GwError, step: string | null) {
  const failed = state.attempts.filter((a) => a.status === "error");
  const lastAttempt = failed.at(-1);
  const rootCause = lastAttempt
    ? `${lastAttempt.failure_class} at ${lastAttempt.provider} (${lastAttempt.model})` +
      (failed.length > 1 ? ` after ${failed.length} attempts` : "")
    : error.info.callerSide ? "the request or the caller's account" : "the gateway";
  return {
    primary: { code: error.code, category: error.info.category, message: error.logMessage },
    root_cause: rootCause,
    step,
    recovery: RECOVERY[error.code] ?? "Retry later; if it persists, report the request id.",
  };
}
