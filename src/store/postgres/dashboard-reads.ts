// The dashboard's reads in the multi-instance mode (docs/scale-out.md "Dashboard and audit log"): the
// overview's minute rows, spend counters, ratings and miss reasons, from every instance's rows.
import { isObject, parseStored } from "../../lib/json.ts";
import type { RatingStats } from "../repos/view-reads.ts";
import { decodeTrace } from "../trace-codec.ts";
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

/** Live, counted ratings updated since `since`, per (model, task), as view-reads.ts `ratingStats` (every instance's). */
export async function ratingStats(pg: Postgres, projectId: string, since: number): Promise<RatingStats[]> {
  const rows: Array<{ model_id: string; task: string; n: string; s: string; ss: string }> = await bounded(pg, "rating stats", () => pg.sql`
    SELECT model_id, task, count(*) AS n, sum(rating) AS s, sum(rating * rating) AS ss FROM feedback
    WHERE project_id = ${projectId} AND counted AND NOT test AND model_id IS NOT NULL AND task IS NOT NULL AND updated_at >= ${since}
    GROUP BY model_id, task`);
  return rows.map((r) => ({ model: r.model_id, task: r.task, count: Number(r.n), sum: Number(r.s), sumSquares: Number(r.ss) }));
}

/** `trace.cache.miss_reason` over the project's newest `limit` traces of every instance, as view-reads.ts
 * `missReasons` counts them (`->>` gives the cache part as SQLite's json_extract does). */
export async function missReasons(pg: Postgres, projectId: string, limit: number): Promise<Array<{ reason: string; count: number }>> {
  const rows: Array<{ ch: string | null }> = await bounded(pg, "miss reasons", () => pg.sql`
    SELECT coalesce(data::json ->> 'ch', data::json ->> 'cache') AS ch FROM traces WHERE project_id = ${projectId} ORDER BY request_id DESC LIMIT ${limit}`);
  const counts = new Map<string, number>();
  for (const { ch } of rows) {
    if (ch === null) continue;
    const cache = decodeTrace({ "~": 1, ch: parseStored<unknown>(ch, null) })?.cache;
    const reason = isObject(cache) ? cache.miss_reason : null;
    if (typeof reason === "string") counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}
