// The one table of public error codes (docs/api.md "Errors"):
// code -> HTTP status, OpenAI-style type, metrics category, and whether the caller is at fault.

export type ErrorCategory =
  | "VALIDATION_FAILED" | "AUTHENTICATION" | "PERMISSION_DENIED" | "POLICY_BLOCKED"
  | "BUDGET_EXCEEDED" | "INSUFFICIENT_CREDITS" | "PLAN_LIMIT" | "MODEL_NOT_FOUND"
  | "NOT_FOUND" | "CONFLICT" | "IDEMPOTENCY_MISMATCH" | "RATE_LIMIT"
  | "NO_MODEL_AVAILABLE" | "PROVIDER_UNAVAILABLE" | "UPSTREAM_ERROR" | "TIMEOUT" | "INTERNAL";

export interface CodeInfo {
  status: number;
  type: string;
  category: ErrorCategory;
  /** Caller-side errors do not count against availability (docs/api.md "Errors"). */
  callerSide: boolean;
}

const entry = (status: number, type: string, category: ErrorCategory, callerSide: boolean): CodeInfo =>
  ({ status, type, category, callerSide });

export const ERROR_CODES = {
  invalid_request: entry(400, "invalid_request_error", "VALIDATION_FAILED", true),
  blocked_by_policy: entry(400, "invalid_request_error", "POLICY_BLOCKED", true),
  invalid_api_key: entry(401, "authentication_error", "AUTHENTICATION", true),
  budget_exceeded: entry(402, "billing_error", "BUDGET_EXCEEDED", true),
  insufficient_credits: entry(402, "billing_error", "INSUFFICIENT_CREDITS", true),
  plan_limit: entry(402, "billing_error", "PLAN_LIMIT", true),
  permission_denied: entry(403, "permission_error", "PERMISSION_DENIED", true),
  model_not_found: entry(404, "not_found_error", "MODEL_NOT_FOUND", true),
  not_found: entry(404, "not_found_error", "NOT_FOUND", true),
  conflict: entry(409, "conflict_error", "CONFLICT", true),
  idempotency_mismatch: entry(422, "invalid_request_error", "IDEMPOTENCY_MISMATCH", true),
  rate_limited: entry(429, "rate_limit_error", "RATE_LIMIT", false),
  upstream_error: entry(502, "api_error", "UPSTREAM_ERROR", false),
  no_model_available: entry(503, "api_error", "NO_MODEL_AVAILABLE", false),
  provider_unavailable: entry(503, "api_error", "PROVIDER_UNAVAILABLE", false),
  timeout: entry(504, "timeout_error", "TIMEOUT", false),
  /** gw itself cannot take requests now: its storage cannot record them, or it is shutting down
   * (docs/availability.md). Answered before any upstream call; counts against availability. */
  service_unavailable: entry(503, "api_error", "INTERNAL", false),
  internal_error: entry(500, "api_error", "INTERNAL", false),
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
