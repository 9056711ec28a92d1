// Uptime over 24h/7d/30d/90d and the 90 daily bars, from per-day request counts (UTC days).
// Uptime is request-weighted: ok requests over all requests; a window without traffic has none (null).

export const DAYS = 90;
const DAY_MS = 86_400_000;

/** One UTC day's traffic for a component; days without traffic may be absent. */
export interface DayCount {
  /** YYYY-MM-DD (UTC). */
  day: string;
  requests: number;
  ok: number;
}

export interface Counts {
  requests: number;
  ok: number;
}

export interface Uptime {
  "24h": number | null;
  "7d": number | null;
  "30d": number | null;
  "90d": number | null;
}

/** One bar: uptime share of the day, null when the day had no traffic. */
export interface DayBar {
  day: string;
  uptime: number | null;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The last `n` UTC days ending with today, oldest first. */
export function lastDays(now: number, n: number): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) out.push(utcDay(now - i * DAY_MS));
  return out;
}

function ratio(c: Counts): number | null {
  return c.requests > 0 ? Math.min(1, Math.max(0, c.ok / c.requests)) : null;
}

function sumDays(byDay: ReadonlyMap<string, DayCount>, days: readonly string[]): Counts {
  const sum = { requests: 0, ok: 0 };
  for (const d of days) {
    const c = byDay.get(d);
    if (c) { sum.requests += c.requests; sum.ok += c.ok; }
  }
  return sum;
}

function index(daily: readonly DayCount[]): Map<string, DayCount> {
  return new Map(daily.map((d) => [d.day, d]));
}

/** 24h comes from its own rolling counts; 7d, 30d and 90d from the last N UTC days, today included. */
export function uptimeOf(last24h: Counts, daily: readonly DayCount[], now: number): Uptime {
  const byDay = index(daily);
  const days = lastDays(now, DAYS);
  return {
    "24h": ratio(last24h),
    "7d": ratio(sumDays(byDay, days.slice(-7))),
    "30d": ratio(sumDays(byDay, days.slice(-30))),
    "90d": ratio(sumDays(byDay, days)),
  };
}

/** Exactly 90 bars, oldest first, ending today. */
export function dayBars(daily: readonly DayCount[], now: number): DayBar[] {
  const byDay = index(daily);
  return lastDays(now, DAYS).map((day) => {
    const c = byDay.get(day);
    return { day, uptime: c ? ratio(c) : null };
  });
}
