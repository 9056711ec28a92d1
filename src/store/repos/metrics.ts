// Metrics rollups (docs/observability.md "Rollups, not scans"; migration 005): the requests repo adds
// each row to its minute row in the same transaction; `compact` makes hour rows. Every read takes
// the project id, except the worker's own compaction.
import type { Database } from "bun:sqlite";
import {
  addRow, addStored, addTotals, COL, emptyTotals, STORED_COLUMNS, storedValues,
  type RollupTotals, type StoredRollup, type StoredValue,
} from "../metrics-rollup.ts";
import type { SqlValue } from "../log-batch-codec.ts";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

type Delta = { projectId: string; bucketMs: number; start: number; totals: RollupTotals };

export function metricsRepo(db: Database) {
  const one = db.query<StoredRollup, [number, number, string]>(
    `SELECT ${STORED_COLUMNS} FROM metrics_rollups WHERE bucket_ms = ? AND start_ms = ? AND project_id = ?`,
  );
  const range = db.query<StoredRollup, [string, number, number, number]>(
    `SELECT ${STORED_COLUMNS} FROM metrics_rollups INDEXED BY metrics_rollups_project
     WHERE project_id = ? AND bucket_ms = ? AND start_ms >= ? AND start_ms < ?`,
  );
  /** Every project's rows of a time range, in key order (compaction). */
  const rangeAll = db.query<StoredRollup & { start_ms: number; project_id: string }, [number, number, number]>(
    `SELECT start_ms, project_id, ${STORED_COLUMNS} FROM metrics_rollups WHERE bucket_ms = ? AND start_ms >= ? AND start_ms < ?`,
  );
  const insert = db.query<unknown, StoredValue[]>(
    `INSERT INTO metrics_rollups (${STORED_COLUMNS}, bucket_ms, start_ms, project_id) VALUES (${Array(15).fill("?").join(", ")})`,
  );
  // An UPDATE of non-key columns leaves the project index alone; INSERT OR REPLACE would rewrite
  // its entry, one more page per commit.
  const update = db.query<unknown, StoredValue[]>(
    `UPDATE metrics_rollups SET ${STORED_COLUMNS.split(", ").map((c) => `${c} = ?`).join(", ")}
     WHERE bucket_ms = ? AND start_ms = ? AND project_id = ?`,
  );
  const prune = db.query<unknown, [number, number]>("DELETE FROM metrics_rollups WHERE bucket_ms = ? AND start_ms < ?");
  const getMark = db.query<{ value: number }, []>("SELECT value FROM metrics_meta WHERE name = 'hours_before'");
  const setMark = db.query<unknown, [number]>("INSERT OR REPLACE INTO metrics_meta (name, value) VALUES ('hours_before', ?)");

  /** Hours starting before this have hour rows (0: none compacted yet). */
  const hoursBefore = (): number => getMark.get()?.value ?? 0;

  /** Read, add, write back. Callers hold the write lock (their transaction wrote first). */
  function merge(d: Delta): void {
    const stored = one.get(d.bucketMs, d.start, d.projectId);
    if (stored) addStored(d.totals, stored);
    (stored ? update : insert).run(...storedValues(d.totals), d.bucketMs, d.start, d.projectId);
  }

  function deltaIn(map: Map<string, Delta>, projectId: string, bucketMs: number, start: number): Delta {
    const key = `${start}|${projectId}`;
    let d = map.get(key);
    if (!d) map.set(key, (d = { projectId, bucketMs, start, totals: emptyTotals() }));
    return d;
  }

  function sumRange(t: RollupTotals, projectId: string, bucketMs: number, from: number, to: number): void {
    if (from < to) for (const r of range.iterate(projectId, bucketMs, from, to)) addStored(t, r);
  }

  const compact = db.transaction((now: number): number => {
    const from = hoursBefore();
    const to = now - (now % HOUR_MS);
    if (from >= to) return 0;
    const hours = new Map<string, Delta>();
    for (const r of rangeAll.iterate(MINUTE_MS, from, to)) {
      addStored(deltaIn(hours, r.project_id, HOUR_MS, r.start_ms - (r.start_ms % HOUR_MS)).totals, r);
    }
    for (const d of hours.values()) merge(d);
    setMark.run(to);
    return hours.size;
  });

  return {
    /** The rollup deltas of one transaction's rows; `write` merges them: one read and one write
     * per (project, minute) touched, and per (project, hour) only for rows of an already
     * compacted hour (a retried batch after an outage). */
    batch() {
      const minutes = new Map<string, Delta>();
      // A batch's rows mostly share one project and minute: the last delta is tried first.
      let last: Delta | null = null;
      return {
        add(values: readonly SqlValue[]): void {
          const createdAt = values[COL.createdAt] as number;
          const projectId = values[COL.project] as string;
          const start = createdAt - (createdAt % MINUTE_MS);
          if (last === null || last.start !== start || last.projectId !== projectId) {
            last = deltaIn(minutes, projectId, MINUTE_MS, start);
          }
          addRow(last.totals, values);
        },
        write(): void {
          if (minutes.size === 0) return;
          const mark = hoursBefore();
          const late = new Map<string, Delta>();
          for (const d of minutes.values()) {
            if (d.start < mark) addTotals(deltaIn(late, d.projectId, HOUR_MS, d.start - (d.start % HOUR_MS)).totals, d.totals);
            merge(d);
          }
          for (const d of late.values()) merge(d);
        },
      };
    },
    /** Hour rows for every finished hour not yet compacted, from its minute rows. */
    compact: (now: number): number => compact.immediate(now),
    /** Totals of a project's requests created in [from, to), both minute-aligned. */
    totals(projectId: string, from: number, to: number): RollupTotals {
      const t = emptyTotals();
      const hourFrom = Math.ceil(from / HOUR_MS) * HOUR_MS;
      const hourTo = Math.min(Math.floor(to / HOUR_MS) * HOUR_MS, hoursBefore());
      if (hourFrom >= hourTo) {
        sumRange(t, projectId, MINUTE_MS, from, to);
        return t;
      }
      sumRange(t, projectId, MINUTE_MS, from, hourFrom);
      sumRange(t, projectId, HOUR_MS, hourFrom, hourTo);
      sumRange(t, projectId, MINUTE_MS, hourTo, to);
      return t;
    },
    /** Deletes minute rows before `minutesBefore` (never those of hours not yet compacted) and
     * hour rows before `hoursBeforeMs`, of every project; returns how many rows went. */
    prune(minutesBefore: number, hoursBeforeMs: number): number {
      const minutes = prune.run(MINUTE_MS, Math.min(minutesBefore, hoursBefore())).changes;
      return minutes + prune.run(HOUR_MS, hoursBeforeMs).changes;
    },
  };
}

export type MetricsRepo = ReturnType<typeof metricsRepo>;
