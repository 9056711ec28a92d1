// The one error class of gw: a public code from codes.ts plus the param at fault and an optional
// status override (413 for oversized bodies keeps the code invalid_request, docs/api.md "Limits").
import { ERROR_CODES, type CodeInfo, type ErrorCode } from "./codes.ts";

export interface GwErrorOptions {
  param?: string | null;
  status?: number;
  /** Seconds the caller should wait (429, 503 from upstream). */
  retryAfter?: number;
  cause?: unknown;
  /** Text safe for the request log when `message` carries upstream text meant only for the caller. */
  logMessage?: string;
}

export class GwError extends Error {
  readonly code: ErrorCode;
  readonly info: CodeInfo;
  readonly param: string | null;
  readonly status: number;
  readonly retryAfter: number | undefined;
  readonly logMessage: string;

  constructor(code: ErrorCode, message: string, options: GwErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GwError";
    this.code = code;
    this.info = ERROR_CODES[code];
    this.param = options.param ?? null;
    this.status = options.status ?? this.info.status;
    this.retryAfter = options.retryAfter;
    this.logMessage = options.logMessage ?? message;
  }

  /** The envelope of docs/api.md "Errors". */
  toBody(requestId: string | null): { error: Record<string, unknown> } {
    return {
      error: {
        message: this.message,
        type: this.info.type,
        code: this.code,
        param: this.param,
        category: this.info.category,
        request_id: requestId,
      },
    };
  }
}

export const invalidRequest = (message: string, param: string | null = null): GwError =>
  new GwError("invalid_request", message, { param });

/** gw's storage cannot record requests (docs/availability.md "Storage"). Retry-After: the storage
 * probe runs every second, so a few seconds is a fair wait. */
export const storageUnavailable = (): GwError =>
  new GwError("service_unavailable", "The gateway cannot record requests right now (storage unavailable); retry later.", { retryAfter: 5 });

/** Anything that is not a GwError becomes an internal error; the message never leaks details.
 * The multi-instance mode's PostgreSQL out of reach (store/postgres/connect.ts StoreUnavailable,
 * known by name: errors/ sits below store/) is a 503: nothing was acknowledged, a retry is safe. */
export function toGwError(err: unknown): GwError {
  if (err instanceof GwError) return err;
  if (err instanceof Error && err.name === "StoreUnavailable") {
    return new GwError("service_unavailable", "The gateway's shared database cannot be reached right now; retry later.", { retryAfter: 5, cause: err });
  }
  return new GwError("internal_error", "The gateway failed to process the request.", { cause: err });
}
