// Failed sign-ins counted per source address in a fixed window (docs/security.md "Admin";
// docs/dashboard.md "Sign-in and roles"): past the limit every attempt from that address, the
// right token included, is refused until the window ends, so guesses learn nothing.
import type { RedisClient } from "bun";
import { GwError } from "../errors/gw-error.ts";
import { RedisScript } from "../store/redis/redis-call.ts";

const MAX_TRACKED = 10_000;

interface Window {
  start: number;
  failures: number;
}

export class SignInThrottle {
  /** Addresses tracked at once; the oldest window is dropped first, so the map never grows unbounded. */
  private readonly windows = new Map<string, Window>();
  constructor(readonly limit: number, private readonly windowMs: number, private readonly now: () => number, private readonly maxTracked = MAX_TRACKED) {}

  /** Seconds until `source` may try again, or null when it is not locked out. */
  lockedFor(source: string): number | null {
    const live = this.live(source, this.now());
    if (!live || live.failures < this.limit) return null;
    return Math.max(1, Math.ceil((live.start + this.windowMs - this.now()) / 1000));
  }

  /** Throws 429 rate_limited (with Retry-After) while `source` is locked out. */
  check(source: string, message: string): void {
    const wait = this.lockedFor(source);
    if (wait !== null) throw new GwError("rate_limited", message, { retryAfter: wait });
  }

  /** Counts a failure; returns the failures of `source` in the current window. */
  fail(source: string): number {
    const now = this.now();
    const live = this.live(source, now);
    if (live) return ++live.failures;
    this.windows.delete(source); // re-inserted last: the Map's order is then oldest window first
    if (this.windows.size >= this.maxTracked) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(source, { start: now, failures: 1 });
    return 1;
  }

  private live(source: string, now: number): Window | undefined {
    const win = this.windows.get(source);
    return win && now - win.start < this.windowMs ? win : undefined;
  }
}

/** KEYS: the address's window. ARGV: window ms. Counts one failure; the first starts the window. */
const failScript = new RedisScript("sign-in-fail", `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`);
/** KEYS: the address's window. Its failures and the ms left ({0, -2} when there is none). */
const readScript = new RedisScript("sign-in-read", `
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`);

/** The multi-instance mode's throttle (docs/scale-out.md "Dashboard and audit log"): one window per
 * address in Redis for every instance, so three instances do not allow three times the guesses.
 * While Redis fails, this instance's own window (`local`) counts instead. */
export class RedisSignInThrottle {
  constructor(private readonly redis: RedisClient, private readonly local: SignInThrottle, private readonly windowMs: number, private readonly name: string) {}

  async check(source: string, message: string): Promise<void> {
    let wait: number | null;
    try {
      const reply = await readScript.run(this.redis, [this.keyOf(source)], []);
      const [failures, ttl] = Array.isArray(reply) ? reply.map(Number) : [0, -2];
      wait = (failures ?? 0) >= this.local.limit ? Math.max(1, Math.ceil((ttl !== undefined && ttl > 0 ? ttl : this.windowMs) / 1000)) : null;
    } catch {
      wait = this.local.lockedFor(source);
    }
    if (wait !== null) throw new GwError("rate_limited", message, { retryAfter: wait });
  }

  async fail(source: string): Promise<number> {
    const here = this.local.fail(source);
    try {
      return Number(await failScript.run(this.redis, [this.keyOf(source)], [String(this.windowMs)]));
    } catch {
      return here;
    }
  }

  private keyOf(source: string): string {
    return `gw:signin:${this.name}:${source}`;
  }
}
