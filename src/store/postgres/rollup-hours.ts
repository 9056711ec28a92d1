// Hour compaction of the metrics rollups on PostgreSQL (docs/scale-out.md "Request log and metrics"),
// a leader job: minute rows of finished hours are folded into hour rows, one batch per transaction,
// and folded minutes past single-node's minute window are deleted (migration 013 for the late writes).
import type { TransactionSQL } from "bun";
import { DAY_MS, MINUTE_ROLLUP_DAYS } from "../log-maintenance.ts";
import type { LeaderJob } from "./leader.ts";
import { HOUR_MS, MINUTE_MS } from "./metrics-rollups.ts";

const COUNTERS = ["requests", "failed", "caller_failed", "fallbacks", "cache_hits", "input_tokens", "output_tokens", "cost", "saved"] as const;
const MAPS = ["errors", "latency", "ttft"] as const;
/** Minute rows folded per run (one transaction), and folded minutes deleted per run: a backlog (a
 * database from before migration 013) is worked off over several runs, never in one long one. */
export const FOLD_BATCH = 20_000;
const DELETE_BATCH = 20_000;
/** Minutes of an hour still being written are left a little past its end (a late write is exact
 * anyway, through the trigger; this only spares it). */
const SETTLE_MS = 5 * MINUTE_MS;

// The oldest unfolded minutes, locked in key order, marked folded and summed into their hours.
const FOLD = `WITH batch AS (
    SELECT start_ms, project_id FROM metrics_rollups WHERE bucket_ms = ${MINUTE_MS} AND NOT folded AND start_ms < $1
    ORDER BY start_ms, project_id LIMIT $2 FOR UPDATE
  ), marked AS (
    UPDATE metrics_rollups m SET folded = true FROM batch b
    WHERE m.bucket_ms = ${MINUTE_MS} AND m.start_ms = b.start_ms AND m.project_id = b.project_id RETURNING m.*
  ), hours AS (
    INSERT INTO metrics_rollups AS h (bucket_ms, start_ms, project_id, ${[...COUNTERS, ...MAPS].join(", ")})
    SELECT ${HOUR_MS}, start_ms - start_ms % ${HOUR_MS}, project_id, ${COUNTERS.map((c) => `sum(${c})`).join(", ")}, ${MAPS.map((m) => `gw_sum_counts(${m})`).join(", ")}
    FROM marked GROUP BY 2, 3 ORDER BY 2, 3
    ON CONFLICT (bucket_ms, start_ms, project_id) DO UPDATE SET
    ${COUNTERS.map((c) => `${c} = h.${c} + excluded.${c}`).join(", ")}, ${MAPS.map((m) => `${m} = gw_add_counts(h.${m}, excluded.${m})`).join(", ")}
    RETURNING 1
  ) SELECT (SELECT count(*) FROM marked)::int AS minutes, (SELECT count(*) FROM hours)::int AS hours`;

const PRUNE = `DELETE FROM metrics_rollups WHERE ctid IN (SELECT ctid FROM metrics_rollups
  WHERE bucket_ms = ${MINUTE_MS} AND folded AND start_ms < $1 LIMIT ${DELETE_BATCH})`;

/** One run: a batch of minutes folded, then folded minutes past the window deleted. */
export async function foldRollups(tx: TransactionSQL, now: number, batch = FOLD_BATCH): Promise<{ minutes: number; hours: number; deleted: number }> {
  const settled = now - SETTLE_MS;
  const [folded]: Array<{ minutes: number; hours: number }> = await tx.unsafe(FOLD, [settled - (settled % HOUR_MS), batch]);
  const pruned = await tx.unsafe(PRUNE, [Math.floor(now - MINUTE_ROLLUP_DAYS * DAY_MS)]);
  return { minutes: folded?.minutes ?? 0, hours: folded?.hours ?? 0, deleted: pruned.count };
}

/** The leader job, every minute; `onDone` hears what a run changed. */
export function rollupHourJobs(onDone?: (detail: Record<string, number>) => void): LeaderJob[] {
  return [{
    name: "rollup hours",
    everyMs: MINUTE_MS,
    run: async (tx, now) => {
      const done = await foldRollups(tx, now);
      if (done.minutes > 0 || done.deleted > 0) onDone?.(done);
    },
  }];
}
