// Per-model rollups (migration 011; docs/dashboard.md "JSON API"): minute rows added in the request
// log's own transaction (requests.ts), hour rows made by compaction, like repos/metrics.ts. Every
// read takes the project id; the windows split into minute and hour rows as metrics totals do.
import type { Database } from "bun:sqlite";
import { addEncoded, bucketOf, emptyHistogram, encodeHistogram } from "../../lib/histogram.ts";
import { COLUMNS, type SqlValue } from "../log-batch-codec.ts";
import { CALLER_SIDE_CATEGORIES } from "../metrics-rollup.ts";
import { HOUR_MS, MINUTE_MS } from "./metrics.ts";

export interface ModelTotals {
  requests: number; failed: number; cost: number; saved: number; cacheExact: number; cacheSemantic: number;
  hitSaved: number; hitInputTokens: number; hitOutputTokens: number; latency: Uint32Array;
}

/** A stored row with its key (start, model, task). */
export interface ModelRollupRow {
  start_ms: number; model: string; task: string; test: number; requests: number; failed: number; cost: number; saved: number;
  cache_exact: number; cache_semantic: number; hit_saved: number; hit_input_tokens: number; hit_output_tokens: number; latency: Uint8Array;
}

export const emptyModelTotals = (): ModelTotals => ({
  requests: 0, failed: 0, cost: 0, saved: 0, cacheExact: 0, cacheSemantic: 0, hitSaved: 0, hitInputTokens: 0, hitOutputTokens: 0,
  latency: emptyHistogram(),
});

export function addModelRow(t: ModelTotals, r: ModelRollupRow): void {
  t.requests += r.requests;
  t.failed += r.failed;
  t.cost += r.cost;
  t.saved += r.saved;
  t.cacheExact += r.cache_exact;
  t.cacheSemantic += r.cache_semantic;
  t.hitSaved += r.hit_saved;
  t.hitInputTokens += r.hit_input_tokens;
  t.hitOutputTokens += r.hit_output_tokens;
  addEncoded(t.latency, r.latency);
}

const at = (name: (typeof COLUMNS)[number]): number => COLUMNS.indexOf(name);
const C = {
  project: at("project_id"), createdAt: at("created_at"), selected: at("selected_model"), requested: at("requested_model"),
  task: at("task"), cost: at("cost"), saved: at("saved"), cache: at("cache"), category: at("error_category"),
  latency: at("latency_ms"), input: at("input_tokens"), output: at("output_tokens"), test: at("test"),
};

/** The model a row counts for: the one that answered, else the one asked for. */
const modelOf = (v: readonly SqlValue[]): string => (v[C.selected] as string | null) ?? (v[C.requested] as string | null) ?? "";

function addValues(t: ModelTotals, v: readonly SqlValue[]): void {
  const category = v[C.category] as string | null;
  t.requests++;
  if (category !== null) t.failed++;
  t.cost += v[C.cost] as number;
  t.saved += v[C.saved] as number;
  const cache = v[C.cache];
  if (cache === "exact" || cache === "semantic") {
    if (cache === "exact") t.cacheExact++;
    else t.cacheSemantic++;
    t.hitSaved += v[C.saved] as number;
    t.hitInputTokens += v[C.input] as number;
    t.hitOutputTokens += v[C.output] as number;
  }
  if (category === null || !CALLER_SIDE_CATEGORIES.has(category)) {
    const b = bucketOf(v[C.latency] as number);
    t.latency[b] = t.latency[b]! + 1;
  }
}

const COLS = "requests, failed, cost, saved, cache_exact, cache_semantic, hit_saved, hit_input_tokens, hit_output_tokens, latency";
type Delta = { bucketMs: number; start: number; projectId: string; model: string; task: string; test: number; totals: ModelTotals };
const valuesOf = (t: ModelTotals) =>
  [t.requests, t.failed, t.cost, t.saved, t.cacheExact, t.cacheSemantic, t.hitSaved, t.hitInputTokens, t.hitOutputTokens, encodeHistogram(t.latency)] as const;
const MARK = "model_hours_before";

/** [from, to) split as metrics totals split it: minute rows at the edges, hour rows between. */
export function rollupSegments(from: number, to: number, hoursBefore: number): Array<[bucketMs: number, from: number, to: number]> {
  const hourFrom = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const hourTo = Math.min(Math.floor(to / HOUR_MS) * HOUR_MS, hoursBefore);
  if (hourFrom >= hourTo) return [[MINUTE_MS, from, to]];
  return [[MINUTE_MS, from, hourFrom], [HOUR_MS, hourFrom, hourTo], [MINUTE_MS, hourTo, to]];
}

export function modelRollupsRepo(db: Database) {
  const one = db.query<ModelRollupRow, [number, number, string, string, string, number]>(
    `SELECT start_ms, model, task, test, ${COLS} FROM model_rollups
     WHERE bucket_ms = ? AND start_ms = ? AND project_id = ? AND model = ? AND task = ? AND test = ?`,
  );
  const insert = db.query<unknown, Array<string | number | Uint8Array>>(
    `INSERT INTO model_rollups (${COLS}, bucket_ms, start_ms, project_id, model, task, test) VALUES (${Array(16).fill("?").join(", ")})`,
  );
  const update = db.query<unknown, Array<string | number | Uint8Array>>(
    `UPDATE model_rollups SET ${COLS.split(", ").map((c) => `${c} = ?`).join(", ")}
     WHERE bucket_ms = ? AND start_ms = ? AND project_id = ? AND model = ? AND task = ? AND test = ?`,
  );
  const range = db.query<ModelRollupRow, [string, number, number, number]>(
    `SELECT start_ms, model, task, test, ${COLS} FROM model_rollups INDEXED BY model_rollups_project
     WHERE project_id = ? AND bucket_ms = ? AND start_ms >= ? AND start_ms < ?`,
  );
  const rangeAll = db.query<ModelRollupRow & { project_id: string }, [number, number, number]>(
    `SELECT start_ms, project_id, model, task, test, ${COLS} FROM model_rollups WHERE bucket_ms = ? AND start_ms >= ? AND start_ms < ?`,
  );
  const prune = db.query<unknown, [number, number]>("DELETE FROM model_rollups WHERE bucket_ms = ? AND start_ms < ?");
  const getMark = db.query<{ value: number }, []>(`SELECT value FROM metrics_meta WHERE name = '${MARK}'`);
  const setMark = db.query<unknown, [number]>(`INSERT OR REPLACE INTO metrics_meta (name, value) VALUES ('${MARK}', ?)`);
  const hoursBefore = (): number => getMark.get()?.value ?? 0;

  function merge(d: Delta): void {
    const stored = one.get(d.bucketMs, d.start, d.projectId, d.model, d.task, d.test);
    if (stored) addModelRow(d.totals, stored);
    (stored ? update : insert).run(...valuesOf(d.totals), d.bucketMs, d.start, d.projectId, d.model, d.task, d.test);
  }

  function deltaIn(map: Map<string, Delta>, bucketMs: number, start: number, projectId: string, model: string, task: string, test: number): Delta {
    const key = `${start}|${projectId}|${model}|${task}|${test}`;
    let d = map.get(key);
    if (!d) map.set(key, (d = { bucketMs, start, projectId, model, task, test, totals: emptyModelTotals() }));
    return d;
  }

  const compact = db.transaction((now: number): number => {
    const from = hoursBefore();
    const to = now - (now % HOUR_MS);
    if (from >= to) return 0;
    const hours = new Map<string, Delta>();
    for (const r of rangeAll.iterate(MINUTE_MS, from, to)) {
      addModelRow(deltaIn(hours, HOUR_MS, r.start_ms - (r.start_ms % HOUR_MS), r.project_id, r.model, r.task, r.test).totals, r);
    }
    for (const d of hours.values()) merge(d);
    setMark.run(to);
    return hours.size;
  });

  return {
    /** The deltas of one log transaction's rows; `write` merges them (late rows of an already
     * compacted hour also into its hour row, as the metrics rollups do). */
    batch() {
      const minutes = new Map<string, Delta>();
      return {
        add(v: readonly SqlValue[]): void {
          const createdAt = v[C.createdAt] as number;
          const start = createdAt - (createdAt % MINUTE_MS);
          addValues(deltaIn(minutes, MINUTE_MS, start, v[C.project] as string, modelOf(v), (v[C.task] as string | null) ?? "", v[C.test] as number).totals, v);
        },
        write(): void {
          if (minutes.size === 0) return;
          const mark = hoursBefore();
          for (const d of minutes.values()) {
            if (d.start < mark) merge({ ...d, bucketMs: HOUR_MS, start: d.start - (d.start % HOUR_MS), totals: { ...d.totals, latency: d.totals.latency.slice() } });
            merge(d);
          }
        },
      };
    },
    compact: (now: number): number => compact.immediate(now),
    /** Every stored row of the project's requests created in [from, to) (minute-aligned). */
    *rows(projectId: string, from: number, to: number): Generator<ModelRollupRow> {
      for (const [bucket, a, b] of rollupSegments(from, to, hoursBefore())) if (a < b) yield* range.iterate(projectId, bucket, a, b);
    },
    prune(minutesBefore: number, hoursBeforeMs: number): number {
      const minutes = prune.run(MINUTE_MS, Math.min(minutesBefore, hoursBefore())).changes;
      return minutes + prune.run(HOUR_MS, hoursBeforeMs).changes;
    },
  };
}

export type ModelRollupsRepo = ReturnType<typeof modelRollupsRepo>;

/** One repo per database, so the log writer's transaction adds no statement preparation. */
const byDb = new WeakMap<Database, ModelRollupsRepo>();

/** The metrics rollup batch of a log transaction with the model rollups' batch beside it. */
export function withModelRollups<B extends { add(v: readonly SqlValue[]): void; write(): void }>(db: Database, metrics: B): B {
  let repo = byDb.get(db);
  if (!repo) byDb.set(db, (repo = modelRollupsRepo(db)));
  const models = repo.batch();
  return { ...metrics, add: (v: readonly SqlValue[]) => (metrics.add(v), models.add(v)), write: () => (metrics.write(), models.write()) };
}
