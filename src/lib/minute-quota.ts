// A count per key within the current minute, reset each minute: it holds at most the keys active
// in one minute. Used for the test-key trace quota (docs/observability.md "Trace storage").
export class MinuteQuota {
  private minute = -1;
  private used = new Map<string, number>();

  take(key: string, now: number, limit: number): boolean {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) (this.minute = minute), this.used.clear();
    const used = this.used.get(key) ?? 0;
    if (used >= limit) return false;
    this.used.set(key, used + 1);
    return true;
  }
}

