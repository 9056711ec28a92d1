// Per-model rollups on PostgreSQL (docs/scale-out.md "Dashboard and audit log"): the leader rebuilds the
// last minutes' rows of single-node's model_rollups shape from every instance's requests, and each
// touched hour's row from its minutes; replaced, never added, so a re-run or a new leader never double counts.
import type { TransactionSQL } from "bun";
import { addEncoded, bucketOf, encodeHistogram } from "../../lib/histogram.ts";
import { CALLER_SIDE_CATEGORIES } from "../metrics-rollup.ts";
import { HOUR_MS, MINUTE_MS } from "../repos/metrics.ts";
import { addModelRow, emptyModelTotals, rollupSegments, type ModelRollupRow, type ModelTotals } from "../repos/model-rollups.ts";
import { bounded, type Postgres } from "./connect.ts";
import type { LeaderJob } from "./leader.ts";

/** Minutes this far back are rebuilt each run: a row commits at its request's end (a longer stream is missed). */
export const MODEL_LOOKBACK_MS = 5 * MINUTE_MS;
/** After a leaderless gap, at most this much is caught up (a run stays bounded). */
const CATCH_UP_MS = 2 * HOUR_MS;
const MARK = "model_rolled_to";
/** How often the leader rebuilds: the dashboard's per-model figures lag the log by about this (plus the
 * leader's tick). Each run scans the window's requests: ~0.5-1 s of PostgreSQL for 60,000 rows (200/s). */
export const MODEL_ROLLUP_EVERY_MS = 10_000;
const NANO = 1e9;
const list = (names: Iterable<string>): string => [...names].filter((c) => /^[A-Z_]+$/.test(c)).map((c) => `'${c}'`).join(", ") || "''";

/** One group per (minute, project, model, task, test, latency): as repos/model-rollups.ts counts a row;
 * lat -1 is a caller-side failure, left out of the histogram. Cost and saved in nano-USD. */
const GROUPS_SQL = `SELECT created_at - created_at % ${MINUTE_MS} AS m, project_id, coalesce(selected_model, requested_model, '') AS model,
  coalesce(task, '') AS task, test,
  CASE WHEN error_category IS NULL OR error_category NOT IN (${list(CALLER_SIDE_CATEGORIES)}) THEN greatest(latency_ms, 0) ELSE -1 END AS lat,
  count(*) AS n, count(error_category) AS failed, sum(cost) AS cost, sum(saved) AS saved,
  count(*) FILTER (WHERE cache = 'exact') AS exact, count(*) FILTER (WHERE cache = 'semantic') AS semantic,
  coalesce(sum(saved) FILTER (WHERE cache IN ('exact', 'semantic')), 0) AS hit_saved,
  coalesce(sum(input_tokens) FILTER (WHERE cache IN ('exact', 'semantic')), 0) AS hit_in,
  coalesce(sum(output_tokens) FILTER (WHERE cache IN ('exact', 'semantic')), 0) AS hit_out
FROM requests WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2, 3, 4, 5, 6`;

const MINUTE_ROWS_DAYS = 32;
/** Bounded per run: a backlog goes over several runs. */
const PRUNE = `DELETE FROM model_rollups WHERE ctid IN (SELECT ctid FROM model_rollups WHERE bucket_ms = ${MINUTE_MS} AND start_ms < $1 LIMIT 5000)`;

interface Group {
  m: string; project_id: string; model: string; task: string; test: boolean; lat: number; n: string; failed: string; cost: string;
  saved: string; exact: string; semantic: string; hit_saved: string; hit_in: string; hit_out: string;
}
type Keyed = { start: number; projectId: string; model: string; task: string; test: boolean; totals: ModelTotals };

function keyed(map: Map<string, Keyed>, start: number, projectId: string, model: string, task: string, test: boolean): ModelTotals {
  const key = `${start}|${projectId}|${model}|${task}|${test}`;
  let k = map.get(key);
  if (!k) map.set(key, (k = { start, projectId, model, task, test, totals: emptyModelTotals() }));
  return k.totals;
}

/** Replaces the rows of one bucket size (cost and saved stay nano-USD, as the table keeps them). */
async function replace(tx: TransactionSQL, bucketMs: number, rows: Iterable<Keyed>): Promise<void> {
  const json = [...rows].map((r) => ({
    start_ms: r.start, project_id: r.projectId, model: r.model, task: r.task, test: r.test, requests: r.totals.requests, failed: r.totals.failed,
    cost: Math.round(r.totals.cost), saved: Math.round(r.totals.saved), cache_exact: r.totals.cacheExact, cache_semantic: r.totals.cacheSemantic,
    hit_saved: Math.round(r.totals.hitSaved), hit_input_tokens: r.totals.hitInputTokens, hit_output_tokens: r.totals.hitOutputTokens,
    latency: Buffer.from(encodeHistogram(r.totals.latency)).toString("base64"),
  })).sort((a, b) => a.start_ms - b.start_ms || (a.project_id < b.project_id ? -1 : a.project_id > b.project_id ? 1 : 0));
  if (json.length === 0) return;
  await tx`INSERT INTO model_rollups (bucket_ms, start_ms, project_id, model, task, test, requests, failed, cost, saved,
    cache_exact, cache_semantic, hit_saved, hit_input_tokens, hit_output_tokens, latency)
    SELECT ${bucketMs}, r.start_ms, r.project_id, r.model, r.task, r.test, r.requests, r.failed, r.cost, r.saved, r.cache_exact, r.cache_semantic,
      r.hit_saved, r.hit_input_tokens, r.hit_output_tokens, decode(r.latency, 'base64')
    FROM jsonb_to_recordset(${JSON.stringify(json)}::text::jsonb) AS r(start_ms bigint, project_id text, model text, task text, test boolean,
      requests bigint, failed bigint, cost bigint, saved bigint, cache_exact bigint, cache_semantic bigint, hit_saved bigint,
      hit_input_tokens bigint, hit_output_tokens bigint, latency text)
    ON CONFLICT (bucket_ms, start_ms, project_id, model, task, test) DO UPDATE SET requests = excluded.requests, failed = excluded.failed,
      cost = excluded.cost, saved = excluded.saved, cache_exact = excluded.cache_exact, cache_semantic = excluded.cache_semantic,
      hit_saved = excluded.hit_saved, hit_input_tokens = excluded.hit_input_tokens, hit_output_tokens = excluded.hit_output_tokens,
      latency = excluded.latency`;
}

interface StoredRow extends Omit<ModelRollupRow, "test" | "start_ms"> { start_ms: string; project_id: string; test: boolean }
const numeric = (r: StoredRow, scale: number): ModelRollupRow => ({
  start_ms: Number(r.start_ms), model: r.model, task: r.task, test: r.test ? 1 : 0, requests: Number(r.requests), failed: Number(r.failed),
  cost: Number(r.cost) / scale, saved: Number(r.saved) / scale, cache_exact: Number(r.cache_exact), cache_semantic: Number(r.cache_semantic),
  hit_saved: Number(r.hit_saved) / scale, hit_input_tokens: Number(r.hit_input_tokens), hit_output_tokens: Number(r.hit_output_tokens),
  latency: r.latency,
});

/** One run: minutes of [from, to) rebuilt from the requests, then every hour they touch from its minute rows. */
export async function rebuildModelRollups(tx: TransactionSQL, now: number): Promise<{ minutes: number; hours: number }> {
  const to = now - (now % MINUTE_MS) + MINUTE_MS;
  const [mark]: Array<{ value: string }> = await tx`SELECT value FROM metrics_meta WHERE name = ${MARK}`;
  const from = Math.max(to - CATCH_UP_MS, Math.min(mark ? Number(mark.value) : to - MODEL_LOOKBACK_MS, to - MODEL_LOOKBACK_MS));
  const groups: Group[] = await tx.unsafe(GROUPS_SQL, [from, to]);
  const minutes = new Map<string, Keyed>();
  for (const g of groups) {
    const t = keyed(minutes, Number(g.m), g.project_id, g.model, g.task, g.test);
    const n = Number(g.n);
    t.requests += n;
    t.failed += Number(g.failed);
    t.cost += Number(g.cost);
    t.saved += Number(g.saved);
    t.cacheExact += Number(g.exact);
    t.cacheSemantic += Number(g.semantic);
    t.hitSaved += Number(g.hit_saved);
    t.hitInputTokens += Number(g.hit_in);
    t.hitOutputTokens += Number(g.hit_out);
    if (g.lat >= 0) t.latency[bucketOf(g.lat)]! += n;
  }
  await replace(tx, MINUTE_MS, minutes.values());
  // The touched hours from their minute rows (this run's and earlier ones'), so an hour row always sums its minutes.
  const hourFrom = from - (from % HOUR_MS);
  const stored: StoredRow[] = await tx`SELECT start_ms, project_id, model, task, test, requests, failed, cost, saved, cache_exact, cache_semantic, hit_saved, hit_input_tokens, hit_output_tokens, latency
    FROM model_rollups
    WHERE bucket_ms = ${MINUTE_MS} AND start_ms >= ${hourFrom} AND start_ms < ${to}`;
  const hours = new Map<string, Keyed>();
  for (const r of stored) {
    const row = numeric(r, 1);
    addModelRow(keyed(hours, row.start_ms - (row.start_ms % HOUR_MS), r.project_id, r.model, r.task, r.test), row);
  }
  await replace(tx, HOUR_MS, hours.values());
  // Minute rows past 32 days are never read (a 30-day window reads whole hours from hour rows), as single-node prunes them.
  await tx.unsafe(PRUNE, [to - MINUTE_ROWS_DAYS * 86_400_000]);
  await tx`INSERT INTO metrics_meta (name, value) VALUES (${MARK}, ${to - MODEL_LOOKBACK_MS})
    ON CONFLICT (name) DO UPDATE SET value = greatest(metrics_meta.value, excluded.value)`;
  return { minutes: minutes.size, hours: hours.size };
}

export function modelRollupJob(everyMs: number): LeaderJob {
  return { name: "model rollups", everyMs, run: async (tx, now) => void (await rebuildModelRollups(tx, now)) };
}

/** The project's rows of [from, to) in USD, as repos/model-rollups.ts `rows` yields them: minute rows at
 * the edges, hour rows for the whole hours between (kept current by the job). */
export async function modelRows(pg: Postgres, projectId: string, from: number, to: number): Promise<ModelRollupRow[]> {
  const parts = await Promise.all(rollupSegments(from, to, Infinity).filter(([, a, b]) => a < b).map(([bucket, a, b]) =>
    bounded(pg, "model rollups", async (): Promise<StoredRow[]> => await pg.sql`SELECT start_ms, project_id, model, task, test, requests, failed, cost, saved, cache_exact, cache_semantic, hit_saved, hit_input_tokens, hit_output_tokens, latency
      FROM model_rollups WHERE project_id = ${projectId} AND bucket_ms = ${bucket} AND start_ms >= ${a} AND start_ms < ${b}`)));
  return parts.flat().map((r) => numeric(r, NANO));
}
