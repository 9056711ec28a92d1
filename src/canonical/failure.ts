// The failure vocabulary of upstream attempts (docs/architecture.md "Errors").
import type { ErrorCode } from "../errors/codes.ts";
import { GwError } from "../errors/gw-error.ts";
import { scrubCredentials } from "./scrub-credentials.ts";

/** Why an upstream attempt failed; decides retry and fallback (docs/architecture.md "Errors"). */
export type FailureClass =
  | "rate_limit" | "transient" | "timeout" | "credential" | "caller" | "context_length" | "content_filter" | "model_gone";

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

export interface UpstreamFailureInit {
  failureClass: FailureClass;
  message: string;
  /** The upstream's HTTP status; null when no answer came (network, deadline, gw itself). */
  upstreamStatus?: number | null;
  /** Seconds the caller should wait. */
  retryAfter?: number;
  /** Overrides the class's default public code (e.g. a 500 is upstream_error, a 503 unavailable). */
  publicCode?: ErrorCode;
  /** The upstream's own explanation: returned to the caller, never logged. */
  detail?: string;
  /** The upstream's error text on a failure of its own (a bad key, an outage; never on a caller
   * fault, whose text may quote the prompt): kept in trace.error and the request log for the
   * operator, never returned to the caller; scrubbed and bounded (docs/observability.md "Traces"). */
  upstreamText?: string;
}

/** The most of an upstream's error text kept in the log. */
export const UPSTREAM_TEXT_MAX = 300;

/** An upstream attempt's failure: its class (decides fallback) and the public code it maps to. */
export class UpstreamFailure extends Error {
  readonly failureClass: FailureClass;
  readonly upstreamStatus: number | null;
  readonly retryAfter: number | undefined;
  readonly publicCode: ErrorCode | undefined;
  readonly detail: string | undefined;
  readonly upstreamText: string | undefined;

  constructor(init: UpstreamFailureInit) {
    super(init.message);
    this.name = "UpstreamFailure";
    this.failureClass = init.failureClass;
    this.upstreamStatus = init.upstreamStatus ?? null;
    this.retryAfter = init.retryAfter;
    this.publicCode = init.publicCode;
    this.detail = init.detail;
    this.upstreamText = init.upstreamText;
  }

  /** An HTTP error answer, as an adapter's status classifier reads it. */
  static fromStatus(
    upstreamStatus: number,
    failureClass: FailureClass,
    message: string,
    more: Pick<UpstreamFailureInit, "retryAfter" | "publicCode" | "detail" | "upstreamText"> = {},
  ): UpstreamFailure {
    return new UpstreamFailure({ failureClass, message, upstreamStatus, ...more });
  }

  /** The upstream answered but its body or stream cannot be used (not JSON, cut, malformed). */
  static badBody(message: string, upstreamStatus: number | null = 200): UpstreamFailure {
    return new UpstreamFailure({ failureClass: "transient", message, upstreamStatus, publicCode: "upstream_error" });
  }

  /** The provider could not be reached at all. */
  static network(message: string): UpstreamFailure {
    return new UpstreamFailure({ failureClass: "transient", message });
  }

  /** The caller went away; the attempt ends without saying anything about the provider. */
  static cancelled(): UpstreamFailure {
    return UpstreamFailure.network("The request was cancelled by the client.");
  }

  /** A deadline passed: before the headers (no status) or while the stream was idle (200). */
  static timeout(message: string, upstreamStatus: number | null = null): UpstreamFailure {
    return new UpstreamFailure({ failureClass: "timeout", message, upstreamStatus });
  }

  /** Something other than an UpstreamFailure escaped the adapter (a bug, not the provider). */
  static unexpected(message: string): UpstreamFailure {
    return UpstreamFailure.badBody(message, null);
  }

  /** The public error code, without building the error. */
  get code(): ErrorCode {
    return this.publicCode ?? PUBLIC_CODE[this.failureClass];
  }

  get canFallback(): boolean {
    return !NO_FALLBACK.has(this.failureClass);
  }

  /** The public error. Both texts are scrubbed: the upstream's explanation may echo a key, and
   * gw's own message may carry a transport error's URL (a `?key=` query). */
  toGwError(): GwError {
    const code = this.code;
    const own = scrubCredentials(this.message);
    const message = this.detail ? `${own} ${scrubCredentials(this.detail)}` : own;
    return new GwError(code, message, { retryAfter: this.retryAfter, logMessage: this.upstreamText ? `${own} ${this.upstreamSaid()}` : own });
  }

  /** `Upstream said: "..."`, scrubbed and cut to UPSTREAM_TEXT_MAX characters. */
  upstreamSaid(): string {
    const text = scrubCredentials((this.upstreamText ?? "").replace(/\s+/g, " ").trim());
    return `Upstream said: "${text.length > UPSTREAM_TEXT_MAX ? `${text.slice(0, UPSTREAM_TEXT_MAX)}…` : text}"`;
  }
}
