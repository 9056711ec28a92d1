// The status page on PostgreSQL (docs/scale-out.md "Alerts, incidents and the status page"): the
// operator's posts, and the per-minute status rollups the leader rebuilds from every instance's requests.
import type { LeaderJob } from "./leader.ts";
import { addEncoded, bucketOf, emptyHistogram, encodeHistogram } from "../../lib/histogram.ts";
import { CALLER_SIDE_CATEGORIES } from "../metrics-rollup.ts";
import type { StatusPostRow, StatusPostsStore, StatusUpdateRow } from "../repos/status-posts.ts";
import { PROVIDER_FAILED, ROUTING_FAILED, type StatusRollupsSource, type StatusTotals } from "../repos/status-rollups.ts";
import { pgRun, type PgTarget } from "./alerts.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface PostDbRow {
  id: string; kind: "incident" | "maintenance"; name: string; status: string; impact: string; components: string;
  scheduled_for: string | null; scheduled_until: string | null; monitoring_at: string | null; resolved_at: string | null;
  created_at: string; updated_at: string;
}
interface UpdateDbRow { id: string; post_id: string; status: string; body: string; created_at: string }
const n = (v: string | null): number | null => (v === null ? null : Number(v));
const postOf = (r: PostDbRow): StatusPostRow => ({
  id: r.id, kind: r.kind, name: r.name, status: r.status, impact: r.impact, components: JSON.parse(r.components) as string[],
  scheduledFor: n(r.scheduled_for), scheduledUntil: n(r.scheduled_until), monitoringAt: n(r.monitoring_at), resolvedAt: n(r.resolved_at),
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
});
const updateOf = (u: UpdateDbRow): StatusUpdateRow => ({ id: u.id, postId: u.post_id, status: u.status, body: u.body, createdAt: Number(u.created_at) });

export function postgresStatusPosts(target: PgTarget): StatusPostsStore {
  const run = pgRun(target);
  const pool = "tx" in target ? null : target.pg;
  type Q = Parameters<Parameters<typeof run>[1]>[0];
  /** Several statements as one: their own transaction on the pool, or the caller's. */
  const atomic = <T>(what: string, op: (q: Q) => Promise<T>) => run(what, (q) => (pool ? pool.sql.begin((t) => op(t)) : op(q)));
  const both = (p: StatusPostRow, update: StatusUpdateRow | null, upsert: boolean) => atomic("status posts", async (t) => {
    const values = [p.id, p.kind, p.name, p.status, p.impact, JSON.stringify(p.components), p.scheduledFor, p.scheduledUntil, p.monitoringAt, p.resolvedAt, p.createdAt, p.updatedAt];
    await t.unsafe(`INSERT INTO status_posts (id, kind, name, status, impact, components, scheduled_for, scheduled_until, monitoring_at, resolved_at, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)${upsert ? ` ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
      status = excluded.status, impact = excluded.impact, components = excluded.components, scheduled_for = excluded.scheduled_for,
      scheduled_until = excluded.scheduled_until, monitoring_at = excluded.monitoring_at, resolved_at = excluded.resolved_at,
      created_at = excluded.created_at, updated_at = excluded.updated_at` : ""}`, values);
    if (update) await t`INSERT INTO status_updates (id, post_id, status, body, created_at) VALUES (${update.id}, ${p.id}, ${update.status}, ${update.body}, ${update.createdAt})`;
  });
  return {
    create: (p, first) => both(p, first, false),
    save: (p, update) => both(p, update, true),
    get: (id) => run("status posts", async (q) => {
      const [r]: PostDbRow[] = await q`SELECT * FROM status_posts WHERE id = ${id}`;
      return r ? postOf(r) : null;
    }),
    updates: (postId) => run("status posts", async (q) => {
      const rows: UpdateDbRow[] = await q`SELECT * FROM status_updates WHERE post_id = ${postId} ORDER BY created_at DESC, id DESC`;
      return rows.map(updateOf);
    }),
    updatesOf: (postIds) => run("status posts", async (q) => {
      const out = new Map<string, StatusUpdateRow[]>(postIds.map((id) => [id, []]));
      if (postIds.length === 0) return out;
      const rows: UpdateDbRow[] = await q`SELECT * FROM status_updates WHERE post_id IN ${q(postIds)} ORDER BY created_at DESC, id DESC`;
      for (const u of rows) out.get(u.post_id)?.push(updateOf(u));
      return out;
    }),
    page: (limit, after) => run("status posts", async (q) => {
      const before = after === undefined ? "\uffff" : after.slice(4);
      const rows: PostDbRow[] = await q`SELECT * FROM status_posts WHERE substr(id, 5) < ${before} ORDER BY substr(id, 5) DESC LIMIT ${limit}`;
      return rows.map(postOf);
    }),
    shown: (since, now) => run("status posts", async (q) => {
      const rows: PostDbRow[] = await q`SELECT * FROM status_posts WHERE (kind = 'incident' AND (resolved_at IS NULL OR resolved_at >= ${since}))
        OR (kind = 'maintenance' AND resolved_at IS NULL AND scheduled_until > ${now})`;
      return rows.map(postOf);
    }),
    remove: (id) => atomic("status posts", async (t) => {
      await t`DELETE FROM status_updates WHERE post_id = ${id}`;
      return (await t`DELETE FROM status_posts WHERE id = ${id}`).count === 1;
    }),
  };
}

/** Hour rows count only for the hours before a component's first minute row: the leader writes
 * minutes only, and hours come from a SQLite directory moved by `gw migrate-to-postgres`, whose
 * last days are there as minutes too. */
const HOURS_BEFORE = (component: string) => `(SELECT coalesce(min(start_ms) - min(start_ms) % ${HOUR_MS}, ${Number.MAX_SAFE_INTEGER})
  FROM status_rollups WHERE component = ${component} AND bucket_ms = ${MINUTE_MS})`;
const ROWS_OF = `(bucket_ms = ${MINUTE_MS} OR (bucket_ms = ${HOUR_MS} AND start_ms + ${HOUR_MS} <= ${HOURS_BEFORE("$1")}))`;

/** The status page's reads of the rollups: minute rows, and hour rows of moved history. */
export function postgresStatusRollups(target: PgTarget): StatusRollupsSource {
  const run = pgRun(target);
  return {
    totals: (component, from, to) => run("status rollups", async (q) => {
      const rows: Array<{ requests: string; ok: string; latency: Uint8Array }> = await q.unsafe(`SELECT requests, ok, latency FROM status_rollups
        WHERE component = $1 AND ${ROWS_OF} AND start_ms >= $2 AND start_ms < $3`, [component, from, to]);
      const t: StatusTotals = { requests: 0, ok: 0, latency: emptyHistogram() };
      for (const r of rows) {
        t.requests += Number(r.requests);
        t.ok += Number(r.ok);
        addEncoded(t.latency, r.latency);
      }
      return t;
    }),
    daily: (component, days, now) => run("status rollups", async (q) => {
      const from = now - (now % DAY_MS) - (days - 1) * DAY_MS;
      const to = now - (now % MINUTE_MS) + MINUTE_MS;
      const rows: Array<{ d: string; requests: string; ok: string }> = await q.unsafe(`SELECT start_ms / ${DAY_MS} AS d, sum(requests) AS requests, sum(ok) AS ok
        FROM status_rollups WHERE component = $1 AND ${ROWS_OF} AND start_ms >= $2 AND start_ms < $3
        GROUP BY d ORDER BY d`, [component, from, to]);
      return rows.map((r) => ({ day: new Date(Number(r.d) * DAY_MS).toISOString().slice(0, 10), requests: Number(r.requests), ok: Number(r.ok) }));
    }),
  };
}

/** Minutes this far back are rebuilt each run: a request's row commits at its end, so one that
 * ran longer than this (a long stream) is not counted. */
export const STATUS_LOOKBACK_MS = 5 * MINUTE_MS;
/** After a leaderless gap, at most this much is caught up (a run stays bounded). */
const STATUS_CATCH_UP_MS = 2 * 3_600_000;
const MARK = "status_rolled_to";
const list = (names: Iterable<string>): string => [...names].filter((c) => /^[A-Z_]+$/.test(c)).map((c) => `'${c}'`).join(", ") || "''";

/** One (minute, component, ok, latency) group per row: as statusComponentsOf counts a request. */
const GROUPS_SQL = `WITH r AS (
  SELECT created_at - created_at % ${MINUTE_MS} AS m, error_category AS cat, cache IS NOT NULL AS hit, requested_model AS req,
    coalesce(selected_model, requested_model) AS model, provider, test, greatest(latency_ms, 0) AS lat
  FROM requests WHERE created_at >= $1 AND created_at < $2 AND (error_category IS NULL OR error_category NOT IN (${list(CALLER_SIDE_CATEGORIES)}))
), c AS (
  SELECT m, 'api' AS component, cat IS NULL AS ok, lat FROM r
  UNION ALL SELECT m, 'cache', NOT (hit AND coalesce(cat = 'INTERNAL', false)), lat FROM r WHERE hit OR req IS NULL OR req NOT LIKE 'gw-test:%'
  UNION ALL SELECT m, 'routing', NOT coalesce(cat IN (${list(ROUTING_FAILED)}), false), lat FROM r WHERE NOT hit
  UNION ALL SELECT m, 'provider:' || coalesce(provider, split_part(model, '/', 1)), NOT coalesce(cat IN (${list(PROVIDER_FAILED)}), false), lat
    FROM r WHERE NOT hit AND NOT test AND (provider IS NOT NULL OR (strpos(model, '/') > 1 AND model NOT LIKE 'gw-%'))
)
SELECT m, component, ok, lat, count(*) AS n FROM c GROUP BY m, component, ok, lat`;

/** The leader's job: the last minutes' status rollups rebuilt (replaced, so a rerun changes nothing)
 * from the request log of every instance. */
export function statusRollupJob(everyMs: number): LeaderJob {
  return {
    name: "status rollups",
    everyMs,
    run: async (tx, now) => {
      const to = now - (now % MINUTE_MS) + MINUTE_MS;
      const [mark]: Array<{ value: string }> = await tx`SELECT value FROM metrics_meta WHERE name = ${MARK}`;
      const from = Math.max(to - STATUS_CATCH_UP_MS, Math.min(mark ? Number(mark.value) : to - STATUS_LOOKBACK_MS, to - STATUS_LOOKBACK_MS));
      const groups: Array<{ m: string; component: string; ok: boolean; lat: number; n: string }> = await tx.unsafe(GROUPS_SQL, [from, to]);
      const rows = new Map<string, { start_ms: number; component: string; requests: number; ok: number; latency: Uint32Array }>();
      for (const g of groups) {
        const key = `${g.m}|${g.component}`;
        let r = rows.get(key);
        if (!r) rows.set(key, (r = { start_ms: Number(g.m), component: g.component, requests: 0, ok: 0, latency: emptyHistogram() }));
        const count = Number(g.n);
        r.requests += count;
        if (g.ok) r.ok += count;
        r.latency[bucketOf(g.lat)]! += count;
      }
      if (rows.size > 0) {
        const json = [...rows.values()].sort((a, b) => a.start_ms - b.start_ms || (a.component < b.component ? -1 : 1))
          .map((r) => ({ ...r, latency: Buffer.from(encodeHistogram(r.latency)).toString("base64") }));
        await tx`INSERT INTO status_rollups (bucket_ms, start_ms, component, requests, ok, latency)
          SELECT ${MINUTE_MS}, r.start_ms, r.component, r.requests, r.ok, decode(r.latency, 'base64')
          FROM jsonb_to_recordset(${JSON.stringify(json)}::text::jsonb) AS r(start_ms bigint, component text, requests bigint, ok bigint, latency text)
          ON CONFLICT (component, bucket_ms, start_ms) DO UPDATE SET requests = excluded.requests, ok = excluded.ok, latency = excluded.latency`;
      }
      const settled = to - STATUS_LOOKBACK_MS;
      await tx`INSERT INTO metrics_meta (name, value) VALUES (${MARK}, ${settled})
        ON CONFLICT (name) DO UPDATE SET value = greatest(metrics_meta.value, excluded.value)`;
    },
  };
}
