// Reads only the dashboard's views make (docs/dashboard.md "JSON API"): time-stamped metrics rollup
// rows, a project's cache footprint, recent miss reasons and 30-day rating sums. Every read takes
// the project id, and each is bounded (an index range, or a LIMIT).
import type { Database } from "bun:sqlite";
import { isObject, parseStored } from "../../lib/json.ts";
import { STORED_COLUMNS, type StoredRollup } from "../metrics-rollup.ts";
import { decodeTrace } from "../trace-codec.ts";
import { rollupSegments } from "./model-rollups.ts";

export type TimedRollup = StoredRollup & { start_ms: number };

/** Ratings of one (model, task) in a window: count, sum and sum of squares (for the mean's bound). */
export interface RatingStats { model: string; task: string; count: number; sum: number; sumSquares: number }

export function viewReads(db: Database) {
  const metricsRange = db.query<TimedRollup, [string, number, number, number]>(
    `SELECT start_ms, ${STORED_COLUMNS} FROM metrics_rollups INDEXED BY metrics_rollups_project
     WHERE project_id = ? AND bucket_ms = ? AND start_ms >= ? AND start_ms < ?`,
  );
  const metricsMark = db.query<{ value: number }, []>("SELECT value FROM metrics_meta WHERE name = 'hours_before'");
  const footprint = db.query<{ entries: number; bytes: number | null }, [string, number]>(
    `SELECT count(*) AS entries, sum(length(key) + length(partition) + length(body) + length(usage) + coalesce(length(question), 0)) AS bytes
     FROM cache_entries WHERE project_id = ? AND expires_at > ?`,
  );
  // Request ids sort by time, so the newest traces are the end of the project's primary-key range.
  const recentCache = db.query<{ ch: string | null }, [string, number]>(
    `SELECT coalesce(json_extract(data, '$.ch'), json_extract(data, '$.cache')) AS ch FROM traces
     WHERE project_id = ? ORDER BY request_id DESC LIMIT ?`,
  );
  const ratings = db.query<{ model_id: string; task: string; n: number; s: number; ss: number }, [string, number]>(
    `SELECT model_id, task, count(*) AS n, sum(rating) AS s, sum(rating * rating) AS ss FROM feedback
     WHERE project_id = ? AND counted = 1 AND test = 0 AND model_id IS NOT NULL AND task IS NOT NULL AND updated_at >= ?
     GROUP BY model_id, task`,
  );

  return {
    /** The project's metrics rollup rows of [from, to), split into minute and hour rows exactly as
     * metrics totals are (repos/metrics.ts), so they add up to the same totals. */
    *metricsRows(projectId: string, from: number, to: number): Generator<TimedRollup> {
      for (const [bucket, a, b] of rollupSegments(from, to, metricsMark.get()?.value ?? 0)) {
        if (a < b) yield* metricsRange.iterate(projectId, bucket, a, b);
      }
    },
    /** Live cached answers of the project and the bytes their rows hold. */
    cacheFootprint(projectId: string, now: number): { entries: number; bytes: number } {
      const r = footprint.get(projectId, now);
      return { entries: r?.entries ?? 0, bytes: r?.bytes ?? 0 };
    },
    /** `trace.cache.miss_reason` counted over the project's newest `limit` traces, most frequent first. */
    missReasons(projectId: string, limit: number): Array<{ reason: string; count: number }> {
      const counts = new Map<string, number>();
      for (const { ch } of recentCache.iterate(projectId, limit)) {
        if (ch === null) continue;
        // A stored trace's cache part decodes on its own (trace-codec.ts): either format.
        const cache = decodeTrace({ "~": 1, ch: parseStored<unknown>(ch, null) })?.cache;
        const reason = isObject(cache) ? cache.miss_reason : null;
        if (typeof reason === "string") counts.set(reason, (counts.get(reason) ?? 0) + 1);
      }
      return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
    },
    /** Live, counted ratings (the ones routing uses) updated since `since`, per (model, task). */
    ratingStats(projectId: string, since: number): RatingStats[] {
      return ratings.all(projectId, since).map((r) => ({ model: r.model_id, task: r.task, count: r.n, sum: r.s, sumSquares: r.ss }));
    },
  };
}

export type ViewReads = ReturnType<typeof viewReads>;
