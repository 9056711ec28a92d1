// How many gw instances share this Redis (docs/scale-out.md "Redis"): each beats into one sorted set
// (member: its instance id, score: the beat's time) every few seconds and drops members silent for
// longer than the stale age. The last count is kept, so the fallback limiter still divides by it while Redis is down.
import type { RedisClient } from "bun";
import { REDIS_TIMEOUT_MS, RedisScript, redisCall } from "./redis-call.ts";

/** One call: beat, forget the stale, keep the set itself from outliving every instance, count. */
const beatScript = new RedisScript("instances-beat",
  "redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[1]) - tonumber(ARGV[3]))) " +
  "redis.call('PEXPIRE', KEYS[1], ARGV[3]) return redis.call('ZCARD', KEYS[1])");

const BEAT_TIMEOUT_MS = 2_000;

export interface InstanceCountOptions {
  now?: () => number;
  prefix?: string;
  /** Between beats (default 5 s). */
  everyMs?: number;
  /** A member not heard from for this long is not counted (default 15 s). */
  staleMs?: number;
  /** Bound of one beat (default 2 s): off the request path, so it may wait longer than a request's
   * calls; a beat that timed out here may still have landed there, leaving the count behind. */
  timeoutMs?: number;
  /** A beat failed: called on the first failure after a success only (Redis down is said once). */
  onError?: (err: unknown, context: string) => void;
}

export class InstanceCount {
  private last = 1;
  private failing = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly key: string;
  private readonly now: () => number;

  constructor(private readonly client: RedisClient, private readonly instanceId: string, private readonly options: InstanceCountOptions = {}) {
    this.key = `${options.prefix ?? "gw:"}inst`;
    this.now = options.now ?? Date.now;
  }

  /** The live instances at the last beat that reached Redis (1 before any did). */
  get count(): number {
    return this.last;
  }

  /** Beats once now (resolves when it is answered or failed) and then on the interval. */
  start(): Promise<void> {
    if (this.timer === null) {
      this.timer = setInterval(() => void this.beat(), this.options.everyMs ?? 5_000);
      this.timer.unref();
    }
    return this.beat();
  }

  async beat(): Promise<void> {
    try {
      const n = Number(await beatScript.run(this.client, [this.key], [String(this.now()), this.instanceId, String(this.options.staleMs ?? 15_000)], this.options.timeoutMs ?? BEAT_TIMEOUT_MS));
      if (n >= 1) this.last = n;
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.options.onError?.(err, "instance heartbeat failed; the fallback limiter divides by the last count");
      this.failing = true;
    }
  }

  /** Stops beating and leaves the set, so the others count one fewer at once. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    try {
      await redisCall(this.client, "ZREM", [this.key, this.instanceId], this.options.timeoutMs ?? REDIS_TIMEOUT_MS);
    } catch {
      // Redis gone: the member goes stale on its own.
    }
  }
}
