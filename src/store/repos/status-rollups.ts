// Status page rollups (migration 012; docs/monitoring.md "Status page"): per component and minute,
// across projects, added in the request log's own transaction (requests.ts); hour rows made by
// compaction. Which component a row counts for, and as what, is `statusComponentsOf`.
import type { Database } from "bun:sqlite";
import { addEncoded, bucketOf, emptyHistogram, encodeHistogram } from "../../lib/histogram.ts";
import { COLUMNS, type SqlValue } from "../log-batch-codec.ts";
import { CALLER_SIDE_CATEGORIES } from "../metrics-rollup.ts";
import { HOUR_MS, MINUTE_MS } from "./metrics.ts";
import { rollupSegments } from "./model-rollups.ts";

const DAY_MS = 86_400_000;
const at = (name: (typeof COLUMNS)[number]): number => COLUMNS.indexOf(name);
const C = {
  createdAt: at("created_at"), requested: at("requested_model"), selected: at("selected_model"), provider: at("provider"),
  cache: at("cache"), category: at("error_category"), latency: at("latency_ms"), test: at("test"),
};

/** Routing failed: no model could be chosen, or every candidate tried failed, which is what a
 * request ending in an upstream-side error means (docs/monitoring.md "Component rollups"). */
export const ROUTING_FAILED: ReadonlySet<string> = new Set(["NO_MODEL_AVAILABLE", "PROVIDER_UNAVAILABLE", "UPSTREAM_ERROR", "TIMEOUT"]);
/** The provider's side failed: its errors, timeouts and open circuit. Not a 429: a failed row does
 * not say whether gw's own limit or the provider's answered it. */
export const PROVIDER_FAILED: ReadonlySet<string> = new Set(["UPSTREAM_ERROR", "TIMEOUT", "PROVIDER_UNAVAILABLE"]);

/** The provider a row counts for: the one that answered or, for a failed row, the one last tried;
 * when none was tried (an open circuit), the provider part of the model asked for
 * ("openai/gpt-4o-mini"); none for gw-auto and the like. */
function providerOf(v: readonly SqlValue[]): string | null {
  const answered = v[C.provider] as string | null;
  if (answered !== null) return answered;
  const model = (v[C.selected] as string | null) ?? (v[C.requested] as string | null) ?? "";
  const slash = model.indexOf("/");
  return slash > 0 && !model.startsWith("gw-") ? model.slice(0, slash) : null;
}

/** "provider:<id>" strings made once per provider, not once per row. */
const PROVIDER_COMPONENT = new Map<string, string>();
function providerComponent(provider: string): string {
  const component = `provider:${provider}`;
  if (PROVIDER_COMPONENT.size < 1000) PROVIDER_COMPONENT.set(provider, component);
  return component;
}

/** The components a request-log row (insert values) counts for, each with whether it was ok; none
 * for a caller-side error. Cheap: a few comparisons, no parsing (it runs on the log write path). */
export function statusComponentsOf(v: readonly SqlValue[], out: (component: string, ok: boolean) => void): void {
  const category = v[C.category] as string | null;
  if (category !== null && CALLER_SIDE_CATEGORIES.has(category)) return;
  out("api", category === null);
  const hit = v[C.cache] !== null;
  // gw-test scenarios skip the cache lookup (docs/api.md "Test mode"); a failing store is a miss,
  // logged but not on the row, so the cache fails only when serving a hit failed.
  const requested = v[C.requested] as string | null;
  if (hit || requested === null || !requested.startsWith("gw-test:")) out("cache", !(hit && category === "INTERNAL"));
  if (hit) return;
  out("routing", !(category !== null && ROUTING_FAILED.has(category)));
  if (v[C.test] !== 0) return;
  const provider = providerOf(v);
  if (provider !== null) out(PROVIDER_COMPONENT.get(provider) ?? providerComponent(provider), !(category !== null && PROVIDER_FAILED.has(category)));
}

export interface StatusTotals { requests: number; ok: number; latency: Uint32Array }
interface StoredStatusRow { start_ms: number; component: string; requests: number; ok: number; latency: Uint8Array }
type Delta = { bucketMs: number; start: number; component: string; totals: StatusTotals };

const emptyStatusTotals = (): StatusTotals => ({ requests: 0, ok: 0, latency: emptyHistogram() });
function addStored(t: StatusTotals, r: StoredStatusRow): void {
  t.requests += r.requests;
  t.ok += r.ok;
  addEncoded(t.latency, r.latency);
}
const MARK = "status_hours_before";

export function statusRollupsRepo(db: Database) {
  const one = db.query<StoredStatusRow, [number, number, string]>(
    "SELECT start_ms, component, requests, ok, latency FROM status_rollups WHERE bucket_ms = ? AND start_ms = ? AND component = ?",
  );
  const insert = db.query<unknown, [number, number, Uint8Array, number, number, string]>(
    "INSERT INTO status_rollups (requests, ok, latency, bucket_ms, start_ms, component) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const update = db.query<unknown, [number, number, Uint8Array, number, number, string]>(
    "UPDATE status_rollups SET requests = ?, ok = ?, latency = ? WHERE bucket_ms = ? AND start_ms = ? AND component = ?",
  );
  const range = db.query<StoredStatusRow, [string, number, number, number]>(
    `SELECT start_ms, component, requests, ok, latency FROM status_rollups
     WHERE component = ? AND bucket_ms = ? AND start_ms >= ? AND start_ms < ?`,
  );
  const dayRange = db.query<{ d: number; requests: number; ok: number }, [string, number, number, number]>(
    `SELECT start_ms / ${DAY_MS} AS d, SUM(requests) AS requests, SUM(ok) AS ok FROM status_rollups
     WHERE component = ? AND bucket_ms = ? AND start_ms >= ? AND start_ms < ? GROUP BY d`,
  );
  const rangeAll = db.query<StoredStatusRow, [number, number, number]>(
    "SELECT start_ms, component, requests, ok, latency FROM status_rollups WHERE bucket_ms = ? AND start_ms >= ? AND start_ms < ?",
  );
  const componentsSince = db.query<{ component: string }, [number, number]>(
    "SELECT DISTINCT component FROM status_rollups WHERE bucket_ms = ? AND start_ms >= ?",
  );
  const prune = db.query<unknown, [number, number]>("DELETE FROM status_rollups WHERE bucket_ms = ? AND start_ms < ?");
  const getMark = db.query<{ value: number }, []>(`SELECT value FROM metrics_meta WHERE name = '${MARK}'`);
  const setMark = db.query<unknown, [number]>(`INSERT OR REPLACE INTO metrics_meta (name, value) VALUES ('${MARK}', ?)`);
  const hoursBefore = (): number => getMark.get()?.value ?? 0;

  function merge(d: Delta): void {
    const stored = one.get(d.bucketMs, d.start, d.component);
    if (stored) addStored(d.totals, stored);
    (stored ? update : insert).run(d.totals.requests, d.totals.ok, encodeHistogram(d.totals.latency), d.bucketMs, d.start, d.component);
  }

  function deltaIn(map: Map<string, Delta>, bucketMs: number, start: number, component: string): Delta {
    const key = `${start}|${component}`;
    let d = map.get(key);
    if (!d) map.set(key, (d = { bucketMs, start, component, totals: emptyStatusTotals() }));
    return d;
  }

  function* rows(component: string, from: number, to: number): Generator<StoredStatusRow> {
    for (const [bucket, a, b] of rollupSegments(from, to, hoursBefore())) if (a < b) yield* range.iterate(component, bucket, a, b);
  }

  const compact = db.transaction((now: number): number => {
    const from = hoursBefore();
    const to = now - (now % HOUR_MS);
    if (from >= to) return 0;
    const hours = new Map<string, Delta>();
    for (const r of rangeAll.iterate(MINUTE_MS, from, to)) addStored(deltaIn(hours, HOUR_MS, r.start_ms - (r.start_ms % HOUR_MS), r.component).totals, r);
    for (const d of hours.values()) merge(d);
    setMark.run(to);
    return hours.size;
  });

  return {
    /** The deltas of one log transaction's rows: one Map, one read and write per (minute,
     * component) touched; rows of an already compacted hour also go into its hour row. */
    batch() {
      const minutes = new Map<string, Delta>();
      // A batch's rows mostly share a minute: its deltas by component are kept at hand, and the
      // row's minute and latency bucket are read by one `count` function, not a closure per row.
      let start = -1;
      let inMinute = new Map<string, StatusTotals>();
      let bucket = 0;
      const count = (component: string, ok: boolean): void => {
        let t = inMinute.get(component);
        if (!t) inMinute.set(component, (t = deltaIn(minutes, MINUTE_MS, start, component).totals));
        t.requests++;
        if (ok) t.ok++;
        t.latency[bucket] = t.latency[bucket]! + 1;
      };
      return {
        add(v: readonly SqlValue[]): void {
          const createdAt = v[C.createdAt] as number;
          const minute = createdAt - (createdAt % MINUTE_MS);
          if (minute !== start) (start = minute), (inMinute = new Map());
          bucket = bucketOf(v[C.latency] as number);
          statusComponentsOf(v, count);
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
    /** A component's requests, ok requests and latency histogram over [from, to) (minute-aligned;
     * hour rows serve whole compacted hours inside it). */
    totals(component: string, from: number, to: number): StatusTotals {
      const t = emptyStatusTotals();
      for (const r of rows(component, from, to)) addStored(t, r);
      return t;
    },
    /** Per UTC day (YYYY-MM-DD), the last `days` days ending with today; days without traffic absent. */
    daily(component: string, days: number, now: number): Array<{ day: string; requests: number; ok: number }> {
      const from = now - (now % DAY_MS) - (days - 1) * DAY_MS;
      const to = now - (now % MINUTE_MS) + MINUTE_MS;
      // Hours divide days, so each segment's rows group by day in SQL.
      const byDay = new Map<number, { day: string; requests: number; ok: number }>();
      for (const [bucket, a, b] of rollupSegments(from, to, hoursBefore())) {
        if (a >= b) continue;
        for (const r of dayRange.iterate(component, bucket, a, b)) {
          let d = byDay.get(r.d);
          if (!d) byDay.set(r.d, (d = { day: new Date(r.d * DAY_MS).toISOString().slice(0, 10), requests: 0, ok: 0 }));
          d.requests += r.requests;
          d.ok += r.ok;
        }
      }
      return [...byDay.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    },
    /** Components with minute or hour rows since `since` (e.g. providers seen lately). */
    components(since: number): string[] {
      const seen = new Set<string>();
      for (const bucket of [MINUTE_MS, HOUR_MS]) for (const r of componentsSince.all(bucket, since - (since % DAY_MS))) seen.add(r.component);
      return [...seen].sort();
    },
    /** Deletes minute rows before `minutesBefore` (never of hours not yet compacted) and hour rows
     * before `hoursBeforeMs`; returns how many rows went. */
    prune(minutesBefore: number, hoursBeforeMs: number): number {
      const minutes = prune.run(MINUTE_MS, Math.min(minutesBefore, hoursBefore())).changes;
      return minutes + prune.run(HOUR_MS, hoursBeforeMs).changes;
    },
  };
}

export type StatusRollupsRepo = ReturnType<typeof statusRollupsRepo>;

/** Minute rows serve the recent windows (5 min, 24 h); hour rows the 90 daily bars and baselines. */
export const STATUS_MINUTE_DAYS = 8;
export const STATUS_HOUR_DAYS = 100;

const byDb = new WeakMap<Database, StatusRollupsRepo>();

/** A log transaction's rollup batch with the status rollups' batch beside it. */
export function withStatusRollups<B extends { add(v: readonly SqlValue[]): void; write(): void }>(db: Database, inner: B): B {
  let repo = byDb.get(db);
  if (!repo) byDb.set(db, (repo = statusRollupsRepo(db)));
  const status = repo.batch();
  return { ...inner, add: (v: readonly SqlValue[]) => (inner.add(v), status.add(v)), write: () => (inner.write(), status.write()) };
}

/** What the status page and the built-in rules read, from SQLite or PostgreSQL (src/store/postgres/status.ts). */
export interface StatusRollupsSource {
  totals(component: string, from: number, to: number): Promise<StatusTotals>;
  daily(component: string, days: number, now: number): Promise<Array<{ day: string; requests: number; ok: number }>>;
}

export const sqliteStatusRollupsSource = (repo: StatusRollupsRepo): StatusRollupsSource => ({
  totals: async (component, from, to) => repo.totals(component, from, to),
  daily: async (component, days, now) => repo.daily(component, days, now),
});
