// Failed sign-ins counted per source address in a fixed window (docs/security.md "Admin";
// docs/dashboard.md "Sign-in and roles"): past the limit every attempt from that address, the
// right token included, is refused until the window ends, so guesses learn nothing.
import { GwError } from "../errors/gw-error.ts";

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
