// Rate limits in the multi-instance mode (docs/scale-out.md "Redis"): admitted on Redis, shared by
// every instance. While Redis fails, this instance's own table decides at each limit divided by the
// live instances (fail open, the default) or every limited request is refused (fail closed).
import type { Decision, Level, TokenEstimate } from "../store/rate-limit-store.ts";
import type { InstanceCount } from "../store/redis/instances.ts";
import type { RedisRateLimiter } from "../store/redis/rate-limit.ts";
import { OutageLatch, RedisFailure } from "../store/redis/redis-call.ts";
import { RateLimiter, type RateLimiterOptions } from "./rate-limit.ts";

/** GW_REDIS_FAILURE: what rate limiting does while Redis cannot be reached. */
export type RedisFailureMode = "open" | "closed";

export interface SharedRateLimiterOptions extends RateLimiterOptions {
  instances: InstanceCount;
  failure: RedisFailureMode;
  /** Redis lost (once, not per request), a settle that failed; `recovered` once it answers again. */
  onError: (err: unknown, context: string) => void;
  onRecovered?: () => void;
}

/** The in-process RateLimiter is the fallback, so `admit` (inherited) is the local decision and
 * `admitShared` the shared one; `settle` corrects both (a request was admitted by one of them). */
export class SharedRateLimiter extends RateLimiter {
  private readonly outage = new OutageLatch();

  constructor(private readonly redis: RedisRateLimiter, private readonly shared: SharedRateLimiterOptions) {
    super(shared);
  }

  /** The live instances this one counted at its last heartbeat: the fallback's divisor. */
  get instances(): number {
    return this.shared.instances.count;
  }

  /** Stops the heartbeat and leaves the count (a stop, before the Redis client closes). */
  stop(): Promise<void> {
    return this.shared.instances.stop();
  }

  /** Whether the last admission fell back to the local table (or refused, fail closed). */
  get fallingBack(): boolean {
    return this.outage.isDown;
  }

  /** The decision, or null when Redis failed and the mode is closed (the caller refuses). While Redis
   * is down, one admission per half second asks it again; the others go straight to the fallback. */
  admitShared(requestId: string, levels: readonly Level[], estimate: TokenEstimate): Promise<Decision | null> {
    if (this.outage.skip()) return Promise.resolve(this.fallback(requestId, levels, estimate));
    return this.redis.admit(requestId, levels, estimate).then(
      (decision) => {
        if (this.outage.isDown) {
          this.outage.ok();
          this.shared.onRecovered?.();
        }
        return decision;
      },
      (err: unknown) => {
        if (!(err instanceof RedisFailure)) throw err;
        if (this.outage.fail()) {
          this.shared.onError(err, this.shared.failure === "closed"
            ? "Redis unavailable: rate-limited requests are refused until it answers (GW_REDIS_FAILURE=closed)"
            : "Redis unavailable: rate limits fall back to this instance's share of each limit until it answers");
        }
        return this.fallback(requestId, levels, estimate);
      },
    );
  }

  override settle(requestId: string, actualTokens: number): void {
    super.settle(requestId, actualTokens);
    this.redis.settle(requestId, actualTokens).catch((err: unknown) => this.shared.onError(err, "rate-limit settle on Redis failed; the estimate stays charged"));
  }

  private fallback(requestId: string, levels: readonly Level[], estimate: TokenEstimate): Decision | null {
    if (this.shared.failure === "closed") return null;
    const n = this.shared.instances.count;
    if (n <= 1) return super.admit(requestId, levels, estimate);
    const decision = super.admit(requestId, levels.map((level) => share(level, n)), estimate);
    // The refusal names the configured limit, not this instance's share of it.
    if (!decision.ok) decision.level = levels.find((level) => level.id === decision.level.id) ?? decision.level;
    return decision;
  }
}

/** One instance's part of a level's limits: at least 1, so a small limit still admits somewhere. */
function share(level: Level, n: number): Level {
  const { rpm, tpm } = level.limits;
  return { ...level, limits: { rpm: rpm ? Math.max(1, Math.floor(rpm / n)) : rpm, tpm: tpm ? Math.max(1, Math.floor(tpm / n)) : tpm } };
}
