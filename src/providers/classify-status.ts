// One ladder from an upstream's HTTP error status to a failure class and public code; each adapter's
// errors.ts reads its own body and passes only what its provider says beyond the status.
import { type FailureClass, UpstreamFailure, type UpstreamFailureInit } from "../canonical/failure.ts";
import { retryAfterSeconds } from "./retry-after.ts";

/** How one provider's statuses read: the few places where providers differ. */
export interface StatusDialect {
  /** Statuses that refuse gw's credentials or account (401 and 403 everywhere; Anthropic adds 402). */
  credentialStatuses: readonly number[];
  /** Statuses that mean "unavailable now, retry after" (503; 529 where the provider uses it). */
  unavailableStatuses: readonly number[];
  rateLimitWords: string;
  credentialWords: string;
  unavailableWords: string;
}

/** What a provider's error body says beyond its status. */
export interface StatusHints {
  /** The upstream's own explanation; relayed (as `detail`) only on caller faults. */
  message?: string | null;
  /** Rate limited or out of quota whatever the status (Gemini's RESOURCE_EXHAUSTED). */
  rateLimited?: boolean;
  /** A retry delay from the body, used when no Retry-After header came. */
  retryAfter?: number;
  /** A bad key or an exhausted account whatever the status (Gemini's API_KEY_INVALID, Anthropic's credit balance). */
  credential?: boolean;
  /** gw's account cannot be served (Gemini's FAILED_PRECONDITION): another provider may answer. */
  accountUnserved?: boolean;
  /** The caller's prompt is over the model's context window. */
  contextLength?: boolean;
  /** The provider says it is overloaded whatever the status (Anthropic's overloaded_error). */
  overloaded?: boolean;
}

/** Order matters: a hint only decides where the statuses before it did not. */
export function classifyStatus(
  status: number, headers: Headers, provider: string, dialect: StatusDialect, hints: StatusHints = {},
): UpstreamFailure {
  // The provider's words on its own failures go to the trace and the log (not the caller).
  const upstreamText = hints.message || undefined;
  const failure = (failureClass: FailureClass, message: string, more: Pick<UpstreamFailureInit, "retryAfter" | "publicCode" | "detail"> = {}) =>
    UpstreamFailure.fromStatus(status, failureClass, message, failureClass === "caller" || failureClass === "context_length" ? more : { ...more, upstreamText });
  if (status === 429 || hints.rateLimited) {
    const retryAfter = retryAfterSeconds(headers) ?? hints.retryAfter;
    return failure("rate_limit", `${provider} ${dialect.rateLimitWords} (HTTP ${status}).`, { retryAfter });
  }
  if (dialect.credentialStatuses.includes(status) || hints.credential) {
    return failure("credential", `${provider} ${dialect.credentialWords} (HTTP ${status}).`);
  }
  if (status === 404) return failure("model_gone", `${provider} does not serve this model (HTTP 404).`);
  if (status === 408 || status === 504) return failure("timeout", `${provider} timed out (HTTP ${status}).`);
  if (hints.accountUnserved) return failure("credential", `${provider} cannot serve gw's account (HTTP ${status}).`);
  if (status === 400 || status === 413 || status === 422) {
    // Only caller faults carry the upstream's words back: they explain the caller's own request.
    const detail = hints.message ? `Provider said: ${hints.message}` : undefined;
    const kind = hints.contextLength ? "context_length" : "caller";
    return failure(kind, `${provider} rejected the request (HTTP ${status}).`, { detail });
  }
  if (dialect.unavailableStatuses.includes(status) || hints.overloaded) {
    return failure("transient", `${provider} ${dialect.unavailableWords} (HTTP ${status}).`, { retryAfter: retryAfterSeconds(headers) });
  }
  return failure("transient", `${provider} failed (HTTP ${status}).`, { publicCode: "upstream_error" });
}
