// Typed errors: one class per error code gw answers (docs/api.md "Errors"), the 422 validation
// body, and the network. Every class extends GwError, so `catch (e) { if (e instanceof GwError) }`
// catches them all.

/** The error object of gw's envelope `{"error": {...}}`. */
export interface ErrorBody {
  message?: string;
  type?: string;
  code?: string | null;
  param?: string | null;
  category?: string;
  request_id?: string;
}

export class GwError extends Error {
  /** HTTP status; undefined for network errors and errors inside a stream without one. */
  readonly status: number | undefined;
  readonly code: string | null;
  readonly type: string | null;
  readonly category: string | null;
  readonly param: string | null;
  readonly requestId: string | null;
  /** The response headers, when there was a response. */
  readonly headers: Headers | undefined;

  constructor(message: string, init: { status?: number; body?: ErrorBody; headers?: Headers; requestId?: string | null } = {}) {
    super(message);
    this.name = new.target.name;
    const body = init.body ?? {};
    this.status = init.status;
    this.code = body.code ?? null;
    this.type = body.type ?? null;
    this.category = body.category ?? null;
    this.param = body.param ?? null;
    this.requestId = body.request_id ?? init.requestId ?? init.headers?.get("x-gw-request-id") ?? null;
    this.headers = init.headers;
  }
}

export class InvalidRequestError extends GwError {}
export class BlockedByPolicyError extends GwError {}
export class InvalidApiKeyError extends GwError {}
export class BudgetExceededError extends GwError {}
export class InsufficientCreditsError extends GwError {}
export class PlanLimitError extends GwError {}
export class PermissionDeniedError extends GwError {}
export class ModelNotFoundError extends GwError {}
export class NotFoundError extends GwError {}
export class ConflictError extends GwError {}
export class IdempotencyMismatchError extends GwError {}
export class RateLimitedError extends GwError {}
export class UpstreamError extends GwError {}
export class NoModelAvailableError extends GwError {}
export class ProviderUnavailableError extends GwError {}
/** gw's `504 timeout` (a model took too long). A client-side time-out is a ConnectionTimeoutError. */
export class TimeoutError extends GwError {}

/** A 422 `{message, errors}` body (cache invalidation, feedback): `errors` maps a field to its problems. */
export class ValidationError extends GwError {
  readonly errors: Record<string, string[]>;
  constructor(message: string, errors: Record<string, string[]>, init: { headers?: Headers } = {}) {
    super(message, { status: 422, body: { category: "VALIDATION_FAILED" }, headers: init.headers });
    this.errors = errors;
  }
}

/** gw could not be reached, or the connection broke before an answer. */
export class ConnectionError extends GwError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message);
    if (options.cause !== undefined) Object.defineProperty(this, "cause", { value: options.cause });
  }
}

/** The client's own `timeout` passed before gw answered. */
export class ConnectionTimeoutError extends ConnectionError {}

const BY_CODE: Readonly<Record<string, typeof GwError>> = {
  invalid_request: InvalidRequestError,
  blocked_by_policy: BlockedByPolicyError,
  invalid_api_key: InvalidApiKeyError,
  budget_exceeded: BudgetExceededError,
  insufficient_credits: InsufficientCreditsError,
  plan_limit: PlanLimitError,
  permission_denied: PermissionDeniedError,
  model_not_found: ModelNotFoundError,
  not_found: NotFoundError,
  conflict: ConflictError,
  idempotency_mismatch: IdempotencyMismatchError,
  rate_limited: RateLimitedError,
  upstream_error: UpstreamError,
  no_model_available: NoModelAvailableError,
  provider_unavailable: ProviderUnavailableError,
  timeout: TimeoutError,
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The typed error for an error object (from a response or from inside a stream). */
export function errorFromBody(body: ErrorBody, status: number | undefined, headers?: Headers): GwError {
  const Class = (body.code && Object.hasOwn(BY_CODE, body.code) ? BY_CODE[body.code] : undefined) ?? GwError;
  return new Class(body.message ?? `gw answered ${status ?? "an error"}`, { status, body, headers });
}

/** The typed error for a failed response's status and parsed body (null when not JSON). */
export function errorFromResponse(status: number, json: unknown, headers: Headers): GwError {
  if (isRecord(json) && isRecord(json.error)) return errorFromBody(json.error as ErrorBody, status, headers);
  if (status === 422 && isRecord(json) && typeof json.message === "string" && isRecord(json.errors)) {
    return new ValidationError(json.message, json.errors as Record<string, string[]>, { headers });
  }
  return new GwError(`gw answered ${status}`, { status, headers });
}
