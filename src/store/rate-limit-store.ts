// The rate limiter's state behind one interface (docs/rate-limits.md): the in-process GCRA table
// (billing/rate-limit.ts, the single-node default) and the shared one on Redis (store/redis/) decide
// alike. The types both speak live here, below billing, so the Redis side needs nothing above store.

export interface Limits {
  rpm?: number;
  tpm?: number;
}

/** One counted subject (a project in one mode, or a key) and the limits that apply to it. */
export interface Level {
  id: string;
  /** Who it is in the refusal message: "project" or "key". */
  name: string;
  limits: Limits;
}

export type Decision =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; headers: Record<string, string>; level: Level; dimension: "rpm" | "tpm"; retryAfterMs: number | null; estimate: number };

/** The admission estimate: a cheap bound first, and the exact count only when the bound is refused. */
export interface TokenEstimate {
  bound: number;
  exact?: () => number;
}

/** One dimension's tightest level, as the x-ratelimit-* headers show it. */
export interface LimitSnapshot {
  limit: number;
  remaining: number;
  /** Time until the allowance is whole again. */
  resetMs: number;
}

/** Formats the two tightest snapshots as headers (billing/rate-limit-headers.ts limitHeaders). */
export type LimitHeaders = (requests: LimitSnapshot | null, tokens: LimitSnapshot | null) => Record<string, string>;

/** Requests and tokens per minute, GCRA. In process both calls are synchronous; on Redis they are
 * promises that reject with a RedisFailure (store/redis/redis-call.ts) for the caller to turn into
 * fail-open or fail-closed. */
export interface RateLimitStore {
  /** Admits one request against every level, or none: a refusal by one level charges no other. */
  admit(requestId: string, levels: readonly Level[], estimate: TokenEstimate): Decision | Promise<Decision>;
  /** Replaces the admission's token estimate with the tokens used. Idempotent; unknown ids ignored. */
  settle(requestId: string, actualTokens: number): void | Promise<void>;
}

/** The allowance's window: a limit per minute. */
export const RATE_WINDOW_MS = 60_000;
/** Float slack when comparing theoretical arrival times: 7 rpm does not divide a minute evenly. */
export const RATE_EPSILON_MS = 1e-6;
