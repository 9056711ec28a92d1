// Alert rules, incidents and built-in rules' state on PostgreSQL (docs/scale-out.md "Alerts, incidents
// and the status page"): the SQLite repos' semantics, over the pool (bounded) or the leader's transaction.
import type { SQL, TransactionSQL } from "bun";
import { bucketOf } from "../../lib/histogram.ts";
import { requestIdAt } from "../../lib/ids.ts";
import { addTotals, CALLER_SIDE_CATEGORIES, emptyTotals, type RollupTotals } from "../metrics-rollup.ts";
import type { AlertRulesStore, StoredAlertRule } from "../repos/alert-rules.ts";
import type { IncidentRow, IncidentsStore } from "../repos/incidents.ts";
import { bounded, type Postgres } from "./connect.ts";
import { NANO } from "./request-log.ts";

/** Where the statements run: the pool, each call bounded, or a transaction (the leader's, bounded by its session). */
export type PgTarget = { pg: Postgres } | { tx: TransactionSQL };

export function pgRun(target: PgTarget): <T>(what: string, op: (q: SQL | TransactionSQL) => Promise<T>) => Promise<T> {
  return "tx" in target ? (_what, op) => op(target.tx) : (what, op) => bounded(target.pg, what, () => op(target.pg.sql));
}

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

interface RuleRow { id: string; project_id: string; rule: string; state: string | null; created_at: string; updated_at: string }
const ruleOf = (r: RuleRow): StoredAlertRule => ({
  id: r.id, projectId: r.project_id, rule: r.rule, state: r.state, createdAt: num(r.created_at), updatedAt: num(r.updated_at),
});

export function postgresAlertRules(target: PgTarget): AlertRulesStore {
  const run = pgRun(target);
  return {
    insert: (r) => run("alert rules", async (q) => {
      await q`INSERT INTO alert_rules (id, project_id, rule, state, created_at, updated_at) VALUES (${r.id}, ${r.projectId}, ${r.rule}, NULL, ${r.now}, ${r.now})`;
    }),
    get: (id) => run("alert rules", async (q) => {
      const [r]: RuleRow[] = await q`SELECT id, project_id, rule, state, created_at, updated_at FROM alert_rules WHERE id = ${id} AND deleted_at IS NULL`;
      return r ? ruleOf(r) : null;
    }),
    list: (projectId) => run("alert rules", async (q) => {
      const rows: RuleRow[] = await q`SELECT id, project_id, rule, state, created_at, updated_at FROM alert_rules
        WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY created_at, id`;
      return rows.map(ruleOf);
    }),
    all: () => run("alert rules", async (q) => {
      const rows: RuleRow[] = await q`SELECT id, project_id, rule, state, created_at, updated_at FROM alert_rules WHERE deleted_at IS NULL ORDER BY id`;
      return rows.map(ruleOf);
    }),
    projectOf: (id) => run("alert rules", async (q) => {
      const [r]: Array<{ project_id: string }> = await q`SELECT project_id FROM alert_rules WHERE id = ${id}`;
      return r?.project_id ?? null;
    }),
    update: (id, rule, state, now) => run("alert rules", async (q) => {
      const res = await q`UPDATE alert_rules SET rule = ${rule}, state = ${state}, updated_at = ${now} WHERE id = ${id} AND deleted_at IS NULL`;
      return res.count > 0;
    }),
    setState: (id, state, updatedAt) => run("alert rules", async (q) => {
      const res = updatedAt === undefined
        ? await q`UPDATE alert_rules SET state = ${state} WHERE id = ${id} AND deleted_at IS NULL`
        : await q`UPDATE alert_rules SET state = ${state} WHERE id = ${id} AND updated_at = ${updatedAt} AND deleted_at IS NULL`;
      return res.count > 0;
    }),
    remove: (id, now) => run("alert rules", async (q) => {
      const res = await q`UPDATE alert_rules SET deleted_at = ${now} WHERE id = ${id} AND deleted_at IS NULL`;
      return res.count > 0;
    }),
  };
}

interface IncidentDbRow {
  id: string; project_id: string | null; rule_id: string; rule_name: string; component: string | null; severity: string;
  metric: string; threshold: number; window: string; status: string; opened_at: string; resolved_at: string | null;
  peak_value: number | null; last_value: number | null;
}
const incidentOf = (r: IncidentDbRow): IncidentRow => ({
  id: r.id, projectId: r.project_id, ruleId: r.rule_id, ruleName: r.rule_name, component: r.component, severity: r.severity,
  metric: r.metric, threshold: Number(r.threshold), window: r.window, status: r.status === "resolved" ? "resolved" : "opened",
  openedAt: num(r.opened_at), resolvedAt: numOrNull(r.resolved_at), peakValue: numOrNull(r.peak_value), lastValue: numOrNull(r.last_value),
});

export function postgresIncidents(target: PgTarget): IncidentsStore {
  const run = pgRun(target);
  return {
    // The partial unique index keeps one open incident per rule: a second is skipped, not an error.
    open: (i) => run("incidents", async (q) => {
      const res = await q`INSERT INTO incidents (id, project_id, rule_id, rule_name, component, severity, metric, threshold, "window", status, opened_at, peak_value, last_value)
        VALUES (${i.id}, ${i.projectId}, ${i.ruleId}, ${i.ruleName}, ${i.component}, ${i.severity}, ${i.metric}, ${i.threshold}, ${i.window}, 'opened', ${i.openedAt}, ${i.peakValue}, ${i.lastValue})
        ON CONFLICT DO NOTHING`;
      return res.count > 0 ? { ...i, status: "opened" as const, resolvedAt: null } : null;
    }),
    openOf: (ruleId) => run("incidents", async (q) => {
      const [r]: IncidentDbRow[] = await q`SELECT * FROM incidents WHERE rule_id = ${ruleId} AND status = 'opened'`;
      return r ? incidentOf(r) : null;
    }),
    resolve: (ruleId, at, v) => run("incidents", async (q) => {
      const [r]: IncidentDbRow[] = await q`UPDATE incidents SET status = 'resolved', resolved_at = ${at}, peak_value = ${v.peak}, last_value = ${v.last}
        WHERE rule_id = ${ruleId} AND status = 'opened' RETURNING *`;
      return r ? incidentOf(r) : null;
    }),
    setValues: (ruleId, v) => run("incidents", async (q) => {
      await q`UPDATE incidents SET peak_value = ${v.peak}, last_value = ${v.last} WHERE rule_id = ${ruleId} AND status = 'opened'`;
    }),
    list: (query) => run("incidents", async (q) => {
      const before = query.after ?? "~";
      const rows: IncidentDbRow[] = query.status
        ? await q`SELECT * FROM incidents WHERE project_id = ${query.projectId} AND status = ${query.status} AND id < ${before} ORDER BY id DESC LIMIT ${query.limit}`
        : await q`SELECT * FROM incidents WHERE project_id = ${query.projectId} AND id < ${before} ORDER BY id DESC LIMIT ${query.limit}`;
      return rows.map(incidentOf);
    }),
    builtInSince: (since) => run("incidents", async (q) => {
      const rows: IncidentDbRow[] = await q`SELECT * FROM incidents WHERE project_id IS NULL AND (resolved_at IS NULL OR resolved_at >= ${since})
        ORDER BY id DESC LIMIT 200`;
      return rows.map(incidentOf);
    }),
  };
}

/** Built-in provider rules' state (JSON by rule id), kept across leaders. */
export interface BuiltInStateStore {
  load(): Promise<Map<string, string>>;
  save(states: ReadonlyMap<string, string>, now: number): Promise<void>;
}

export function postgresBuiltInStates(target: PgTarget): BuiltInStateStore {
  const run = pgRun(target);
  return {
    load: () => run("built-in alert state", async (q) => {
      const rows: Array<{ rule_id: string; state: string }> = await q`SELECT rule_id, state FROM alert_builtin_state`;
      return new Map(rows.map((r) => [r.rule_id, r.state]));
    }),
    save: (states, now) => run("built-in alert state", async (q) => {
      if (states.size === 0) return;
      const rows = [...states].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([rule_id, state]) => ({ rule_id, state }));
      await q`INSERT INTO alert_builtin_state (rule_id, state, updated_at)
        SELECT r.rule_id, r.state, ${now} FROM jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) AS r(rule_id text, state text)
        ON CONFLICT (rule_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`;
    }),
  };
}

/** What a scoped rule names (docs/monitoring.md "Scoped rules"): model (asked for or answering), provider, task, tag. */
export interface RuleScope { model?: string; provider?: string; task?: string; tag?: string }

/** A scoped rule's totals per minute of [from, to) read from every instance's request log: one pass
 * over the project's rows of the range (its primary key, ids sorting by time), grouped by what the
 * totals need. */
export async function scopedMinutesIn(pg: Postgres, projectId: string, scope: RuleScope, from: number, to: number): Promise<Map<number, RollupTotals>> {
  const rows: Array<{ m: string; cat: string | null; fb: boolean; hit: boolean; lat: number; ttft: number | null; n: string; input: string; output: string; cost: string; saved: string }> =
    await bounded(pg, "scoped alert totals", () => pg.sql`SELECT created_at - created_at % 60000 AS m, error_category AS cat, fallbacks > 0 AS fb,
      cache IS NOT NULL AS hit, latency_ms AS lat, ttft_ms AS ttft, count(*) AS n, sum(input_tokens) AS input, sum(output_tokens) AS output,
      sum(cost) AS cost, sum(saved) AS saved
      FROM requests WHERE project_id = ${projectId} AND id >= ${requestIdAt(from)} AND created_at >= ${from} AND created_at < ${to}
        AND (${scope.model ?? null}::text IS NULL OR requested_model = ${scope.model ?? null} OR selected_model = ${scope.model ?? null})
        AND (${scope.provider ?? null}::text IS NULL OR provider = ${scope.provider ?? null})
        AND (${scope.task ?? null}::text IS NULL OR task = ${scope.task ?? null})
        AND (${scope.tag ?? null}::text IS NULL OR ${scope.tag ?? ""} = ANY(tags))
      GROUP BY 1, 2, 3, 4, 5, 6`);
  const minutes = new Map<number, RollupTotals>();
  for (const r of rows) {
    const minute = Number(r.m);
    let t = minutes.get(minute);
    if (!t) minutes.set(minute, (t = emptyTotals()));
    const n = Number(r.n);
    const callerSide = r.cat !== null && CALLER_SIDE_CATEGORIES.has(r.cat);
    t.requests += n;
    if (r.cat !== null) {
      t.failed += n;
      if (callerSide) t.callerFailed += n;
      t.errors[r.cat] = (t.errors[r.cat] ?? 0) + n;
    }
    if (r.fb) t.fallbacks += n;
    if (r.hit) t.cacheHits += n;
    t.inputTokens += Number(r.input);
    t.outputTokens += Number(r.output);
    t.cost += Number(r.cost) / NANO;
    t.saved += Number(r.saved) / NANO;
    if (!callerSide) t.latency[bucketOf(r.lat)]! += n;
    if (r.ttft !== null) t.ttft[bucketOf(r.ttft)]! += n;
  }
  return minutes;
}

/** The same summed over [from, to). */
export async function scopedTotalsIn(pg: Postgres, projectId: string, scope: RuleScope, from: number, to: number): Promise<RollupTotals> {
  const t = emptyTotals();
  for (const minute of (await scopedMinutesIn(pg, projectId, scope, from, to)).values()) addTotals(t, minute);
  return t;
}
