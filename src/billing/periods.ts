// UTC calendar periods for budgets (day, month), the plan allowance and invoices (month).

/** "2026-11-22" */
export const dayKey = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** "2026-11" */
export const monthKey = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

export function dayStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The first instant of the UTC month after the one `ms` is in. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** UTC days have no leap seconds in epoch time: every one is this long. */
export const DAY_MS = 86_400_000;

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The [start, end) epoch-ms range of a "YYYY-MM" month, or null when it is not one. */
export function monthRange(key: string): { start: number; end: number } | null {
  const m = MONTH_RE.exec(key);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
}
