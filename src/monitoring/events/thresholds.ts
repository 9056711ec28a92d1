// Pure pieces of the event sources (docs/webhooks.md "Event types"): threshold crossings between
// two figures, 5-minute windows, and a bounded "already sent" set that keeps repeats off the database.

/** Each percent p of `limit` that `before` was under and `after` reaches (before < p% <= after). */
export function crossed(before: number, after: number, limit: number, percents: readonly number[]): number[] {
  if (!(limit > 0) || after <= before) return [];
  const out: number[] = [];
  for (const p of percents) if (before * 100 < p * limit && after * 100 >= p * limit) out.push(p);
  return out;
}

/** Whether `after` fell under `threshold` from at or above it. */
export const fellBelow = (before: number, after: number, threshold: number): boolean => before >= threshold && after < threshold;

export const WINDOW_MS = 5 * 60_000;

/** The start of the 5-minute window holding `ms` (UTC, aligned to the epoch). */
export const windowStart = (ms: number): number => Math.floor(ms / WINDOW_MS) * WINDOW_MS;

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Keys already emitted by this process, so a repeat (every refused request of a period) costs a
 * Set lookup rather than an INSERT OR IGNORE. Bounded: past `max` it forgets everything, and the
 * database's unique key still drops the repeats that follow. */
export class Once {
  private readonly seen = new Set<string>();
  constructor(private readonly max = 10_000) {}
  /** True the first time `key` is seen. */
  first(key: string): boolean {
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.max) this.seen.clear();
    this.seen.add(key);
    return true;
  }
}
