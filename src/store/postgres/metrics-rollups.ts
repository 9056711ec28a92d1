// Per-minute metrics rollups on PostgreSQL (docs/scale-out.md "Request log and metrics"): each batch
// adds its minutes' counters and {bucket: count} histograms into the rows with one INSERT ... ON
// CONFLICT DO UPDATE of sums, so instances writing the same minute add up exactly, with no read.
import type { SQL } from "bun";
import { HISTOGRAM_BUCKETS } from "../../lib/histogram.ts";
import type { SqlValue } from "../log-batch-codec.ts";
import { addCounterColumns, addRow, COL, emptyTotals, type CounterColumns, type RollupTotals } from "../metrics-rollup.ts";
import { bounded, type Postgres } from "./connect.ts";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
const NANO = 1e9;
const COUNTERS = ["requests", "failed", "caller_failed", "fallbacks", "cache_hits", "input_tokens", "output_tokens", "cost", "saved"] as const;
const MAPS = ["errors", "latency", "ttft"] as const;

// Sorted by key: concurrent batches lock the same minute rows in one order, so they never deadlock.
const UPSERT = `INSERT INTO metrics_rollups (bucket_ms, start_ms, project_id, ${[...COUNTERS, ...MAPS].join(", ")})
  SELECT ${MINUTE_MS}, start_ms, project_id, ${[...COUNTERS, ...MAPS].join(", ")} FROM jsonb_to_recordset($1::text::jsonb)
  AS d(start_ms bigint, project_id text, ${COUNTERS.map((c) => `${c} bigint`).join(", ")}, ${MAPS.map((m) => `${m} jsonb`).join(", ")})
  ORDER BY start_ms, project_id
  ON CONFLICT (bucket_ms, start_ms, project_id) DO UPDATE SET
  ${COUNTERS.map((c) => `${c} = metrics_rollups.${c} + excluded.${c}`).join(", ")},
  ${MAPS.map((m) => `${m} = gw_add_counts(metrics_rollups.${m}, excluded.${m})`).join(", ")}`;

/** Sparse form of a dense histogram: the non-empty buckets by index. */
function sparse(counts: Uint32Array): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) out[i] = counts[i]!;
  return out;
}

/** Adds the rows (insert values with `cost` and `saved` already in nano-USD) to their minutes,
 * inside the caller's transaction. */
export async function addRollups(tx: SQL, rows: ReadonlyArray<readonly SqlValue[]>): Promise<void> {
  if (rows.length === 0) return;
  await tx.unsafe(UPSERT, [JSON.stringify(minuteDeltas(rows))]);
}

/** The rows' counts summed per minute and project (insert values, `cost` and `saved` in nano-USD). */
export function minuteDeltas(rows: ReadonlyArray<readonly SqlValue[]>): Array<ReturnType<typeof delta>> {
  const minutes = new Map<string, { start_ms: number; project_id: string; t: RollupTotals }>();
  for (const v of rows) {
    const createdAt = v[COL.createdAt] as number;
    const start = createdAt - (createdAt % MINUTE_MS);
    const key = `${start}\n${v[COL.project] as string}`;
    let m = minutes.get(key);
    if (!m) minutes.set(key, (m = { start_ms: start, project_id: v[COL.project] as string, t: emptyTotals() }));
    addRow(m.t, v);
  }
  return [...minutes.values()].map(({ start_ms, project_id, t }) => delta(start_ms, project_id, t));
}

/** A minute's counts as the upsert reads them (columns by name, histograms sparse). */
const delta = (start_ms: number, project_id: string, t: RollupTotals) => ({
  start_ms, project_id, requests: t.requests, failed: t.failed, caller_failed: t.callerFailed, fallbacks: t.fallbacks,
  cache_hits: t.cacheHits, input_tokens: t.inputTokens, output_tokens: t.outputTokens, cost: t.cost, saved: t.saved,
  errors: t.errors, latency: sparse(t.latency), ttft: sparse(t.ttft),
});

/** Each row's own rollup counts, keyed by its request id (insert values with `cost` and `saved`
 * in nano-USD): when some rows of a batch were there already, gw_write_log (migration 007) sums
 * those of the rows it inserted into their minutes. */
export function rowDeltas(rows: ReadonlyArray<{ id: string; values: readonly SqlValue[] }>): Array<ReturnType<typeof delta> & { request_id: string }> {
  return rows.map(({ id, values }) => {
    const t = emptyTotals();
    addRow(t, values);
    const createdAt = values[COL.createdAt] as number;
    return { ...delta(createdAt - (createdAt % MINUTE_MS), values[COL.project] as string, t), request_id: id };
  });
}

interface StoredMinute extends CounterColumns {
  cost: number; saved: number;
  errors: Record<string, number>; latency: Record<string, number>; ttft: Record<string, number>;
}

function addSparse(into: Uint32Array, from: Record<string, number>): void {
  for (const [i, n] of Object.entries(from)) {
    const b = Number(i);
    if (b >= 0 && b < HISTOGRAM_BUCKETS) into[b] = into[b]! + n;
  }
}

const COLUMNS = `${COUNTERS.map((c) => `${c}::float8 AS ${c}`).join(", ")}, ${MAPS.join(", ")} FROM metrics_rollups WHERE project_id = $1`;
const MINUTES = `SELECT ${COLUMNS} AND bucket_ms = ${MINUTE_MS} AND start_ms >= $2 AND start_ms < $3`;
// The hours inside the range, the minutes at its edges, and the minutes inside not folded into
// their hour yet (migration 013, src/store/postgres/rollup-hours.ts): each minute counted once.
const HOURS_AND_MINUTES = `${MINUTES} UNION ALL SELECT ${COLUMNS} AND bucket_ms = ${MINUTE_MS} AND start_ms >= $4 AND start_ms < $5
  UNION ALL SELECT ${COLUMNS} AND bucket_ms = ${HOUR_MS} AND start_ms >= $3 AND start_ms < $4
  UNION ALL SELECT ${COLUMNS} AND bucket_ms = ${MINUTE_MS} AND NOT folded AND start_ms >= $3 AND start_ms < $4`;

/** Totals of a project's requests in [from, to) (minute-aligned), cost and saved in USD as SQLite's
 * rollups give them: ~720 hour rows and a few hundred minutes for 30 days instead of 43,200 minutes. */
export async function rollupTotals(pg: Postgres, projectId: string, from: number, to: number): Promise<RollupTotals> {
  const hourFrom = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const hourTo = Math.floor(to / HOUR_MS) * HOUR_MS;
  const rows: StoredMinute[] = await bounded(pg, "metrics rollups", () => (hourFrom >= hourTo
    ? pg.sql.unsafe(MINUTES, [projectId, from, to])
    : pg.sql.unsafe(HOURS_AND_MINUTES, [projectId, from, hourFrom, hourTo, to])));
  const t = emptyTotals();
  for (const r of rows) {
    addCounterColumns(t, r);
    t.cost += r.cost / NANO;
    t.saved += r.saved / NANO;
    for (const [category, n] of Object.entries(r.errors)) t.errors[category] = (t.errors[category] ?? 0) + Number(n);
    addSparse(t.latency, r.latency);
    addSparse(t.ttft, r.ttft);
  }
  return t;
}
