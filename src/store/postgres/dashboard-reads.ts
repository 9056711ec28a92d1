// The dashboard overview's series in the multi-instance mode (docs/scale-out.md "Dashboard and audit
// log"): the project's per-minute rollup rows that every instance adds into, cost and saved in USD.
import { bounded, type Postgres } from "./connect.ts";

export interface MinutePoint {
  startMs: number;
  requests: number;
  cost: number;
  saved: number;
  errors: Record<string, number>;
}

/** Minute rows of [from, to), oldest first: at most one per minute of the window (a 30-day window: 43,200). */
export async function minutePoints(pg: Postgres, projectId: string, from: number, to: number): Promise<MinutePoint[]> {
  const rows: Array<Record<string, unknown>> = await bounded(pg, "dashboard series", () => pg.sql`
    SELECT start_ms::float8 AS start_ms, requests::float8 AS requests, cost::float8 AS cost, saved::float8 AS saved, errors
    FROM metrics_rollups WHERE project_id = ${projectId} AND bucket_ms = 60000 AND start_ms >= ${from} AND start_ms < ${to} ORDER BY start_ms`);
  return rows.map((r) => ({
    startMs: Number(r.start_ms), requests: Number(r.requests), cost: Number(r.cost) / 1e9, saved: Number(r.saved) / 1e9,
    errors: typeof r.errors === "object" && r.errors !== null ? (r.errors as Record<string, number>) : {},
  }));
}

export interface SpendFigures {
  /** nano-USD spent today and this month (UTC), and the month's answered requests. */
  daySpent: number;
  monthSpent: number;
  monthRequests: number;
}

/** A project's spend counters of one day and one month (every instance's charges). */
export async function spendFigures(pg: Postgres, projectId: string, day: string, month: string): Promise<SpendFigures> {
  const rows: Array<Record<string, unknown>> = await bounded(pg, "spend counters", () => pg.sql`
    SELECT period, spent::float8 AS spent, requests::float8 AS requests FROM spend_counters
    WHERE project_id = ${projectId} AND ((period = 'daily' AND period_key = ${day}) OR (period = 'monthly' AND period_key = ${month}))`);
  const of = (period: string) => rows.find((r) => r.period === period);
  return { daySpent: Number(of("daily")?.spent ?? 0), monthSpent: Number(of("monthly")?.spent ?? 0), monthRequests: Number(of("monthly")?.requests ?? 0) };
}
