// An upstream attempt's failure: its class (decides fallback) and the public code it maps to.
import type { ErrorCode } from "../errors/codes.ts";
import { GwError } from "../errors/gw-error.ts";
import { scrubCredentials } from "./scrub-credentials.ts";
import type { FailureClass } from "../canonical/failure.ts";

const PUBLIC_CODE: Record<FailureClass, ErrorCode> = {
  rate_limit: "rate_limited",
  transient: "provider_unavailable",
  timeout: "timeout",
  credential: "upstream_error",
  caller: "invalid_request",
  context_length: "invalid_request",
  content_filter: "blocked_by_policy",
  model_gone: "upstream_error",
};

/** Caller faults fail the same way everywhere, so trying another model would only repeat them. */
const NO_FALLBACK: ReadonlySet<FailureClass> = new Set(["caller", "content_filter"]);

export class UpstreamFailure extends Error {
  constructor(
    readonly failureClass: FailureClass,
    message: string,
    readonly upstreamStatus: number | null = null,
    readonly retryAfter?: number,
    /** Overrides the class's default public code (e.g. a 500 is upstream_error, a 503 unavailable). */
    readonly publicCode?: ErrorCode,
    /** The upstream's own explanation: returned to the caller, never logged. */
    readonly detail?: string,
  ) {
    super(message);
    this.name = "UpstreamFailure";
  }

  get canFallback(): boolean {
    return !NO_FALLBACK.has(this.failureClass);
  }

  /** The public error. Both texts are scrubbed: the upstream's explanation may echo a key, and
   * gw's own message may carry a transport error's URL (a `?key=` query). */
  toGwError(): GwError {
    const code = this.publicCode ?? PUBLIC_CODE[this.failureClass];
    const own = scrubCredentials(this.message);
    const message = this.detail ? `${own} ${scrubCredentials(this.detail)}` : own;
    return new GwError(code, message, { retryAfter: this.retryAfter, logMessage: own });
  }
}
