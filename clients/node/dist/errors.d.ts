/** The error object of gw's envelope `{"error": {...}}`. */
export interface ErrorBody {
    message?: string;
    type?: string;
    code?: string | null;
    param?: string | null;
    category?: string;
    request_id?: string;
}
export declare class GwError extends Error {
    /** HTTP status; undefined for network errors and errors inside a stream without one. */
    readonly status: number | undefined;
    readonly code: string | null;
    readonly type: string | null;
    readonly category: string | null;
    readonly param: string | null;
    readonly requestId: string | null;
    /** The response headers, when there was a response. */
    readonly headers: Headers | undefined;
    constructor(message: string, init?: {
        status?: number;
        body?: ErrorBody;
        headers?: Headers;
        requestId?: string | null;
    });
}
export declare class InvalidRequestError extends GwError {
}
export declare class BlockedByPolicyError extends GwError {
}
export declare class InvalidApiKeyError extends GwError {
}
export declare class BudgetExceededError extends GwError {
}
export declare class InsufficientCreditsError extends GwError {
}
export declare class PlanLimitError extends GwError {
}
export declare class PermissionDeniedError extends GwError {
}
export declare class ModelNotFoundError extends GwError {
}
export declare class NotFoundError extends GwError {
}
export declare class ConflictError extends GwError {
}
export declare class IdempotencyMismatchError extends GwError {
}
export declare class RateLimitedError extends GwError {
}
export declare class UpstreamError extends GwError {
}
export declare class NoModelAvailableError extends GwError {
}
export declare class ProviderUnavailableError extends GwError {
}
/** gw's `504 timeout` (a model took too long). A client-side time-out is a ConnectionTimeoutError. */
export declare class TimeoutError extends GwError {
}
/** A 422 `{message, errors}` body (cache invalidation, feedback): `errors` maps a field to its problems. */
export declare class ValidationError extends GwError {
    readonly errors: Record<string, string[]>;
    constructor(message: string, errors: Record<string, string[]>, init?: {
        headers?: Headers;
    });
}
/** gw could not be reached, or the connection broke before an answer. */
export declare class ConnectionError extends GwError {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
/** The client's own `timeout` passed before gw answered. */
export declare class ConnectionTimeoutError extends ConnectionError {
}
/** The typed error for an error object (from a response or from inside a stream). */
export declare function errorFromBody(body: ErrorBody, status: number | undefined, headers?: Headers): GwError;
/** The typed error for a failed response's status and parsed body (null when not JSON). */
export declare function errorFromResponse(status: number, json: unknown, headers: Headers): GwError;
