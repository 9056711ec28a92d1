// The tables `gw migrate-to-postgres` copies (docs/scale-out.md): read from SQLite in pages, each page
// inserted set-based from one JSON parameter inside the command's one transaction, in PostgreSQL's
// units (nano-USD, booleans, tag arrays).
import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { SQL } from "bun";
import { dayKey, dayStart, monthKey, monthStart } from "../billing/periods.ts";
import { COLUMNS, type SqlValue } from "../store/log-batch-codec.ts";
import { addRollups } from "../store/postgres/metrics-rollups.ts";

const PAGE = 1000;
/** A long log copy says how far it got this often (rows; a multiple of PAGE). */
const PROGRESS_EVERY = 100_000;
const DAY_MS = 86_400_000;
const NANO = 1e9;
export type Row = Record<string, unknown>;

/** A column's type in the JSON record, or [that type, the expression stored] (default r.<name>). */
export type Columns = Record<string, string | [string, string]>;
export const BOOL: [string, string] = ["integer", ""];

async function insertPage(tx: SQL, table: string, columns: Columns, rows: Row[], overriding = false): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const type = (n: string) => { const c = columns[n]!; return typeof c === "string" ? c : c[0]; };
  const expr = (n: string) => {
    const c = columns[n]!;
    // SQLite keeps flags as 0/1.
    return typeof c === "string" ? `r."${n}"` : c === BOOL ? `(r."${n}" <> 0)` : c[1];
  };
  // Table and column names are constants of these files, never input; quoted ("window" is reserved).
  await tx.unsafe(`INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(", ")}) ${overriding ? "OVERRIDING SYSTEM VALUE" : ""}
    SELECT ${names.map(expr).join(", ")} FROM jsonb_to_recordset($1::text::jsonb) AS r(${names.map((n) => `"${n}" ${type(n)}`).join(", ")})`,
  [JSON.stringify(rows)]);
}

export interface Copy {
  table: string;
  select: string;
  params?: SQLQueryBindings[];
  columns: Columns;
  map?: (r: Row) => Row;
  overriding?: boolean;
}

/** Copies what `select` reads, a page at a time; returns the rows copied. */
export async function copy(db: Database, tx: SQL, c: Copy): Promise<number> {
  let page: Row[] = [];
  let n = 0;
  for (const row of db.query<Row, SQLQueryBindings[]>(c.select).iterate(...(c.params ?? []))) {
    page.push(c.map ? c.map(row) : row);
    if (page.length < PAGE) continue;
    await insertPage(tx, c.table, c.columns, page, c.overriding);
    n += page.length;
    page = [];
  }
  await insertPage(tx, c.table, c.columns, page, c.overriding);
  return n + page.length;
}

/** Sealed text as PostgreSQL's instances will open it (re-sealed when the data directory's key made it). */
export type Reseal = (sealed: string, what: string) => string;

export const text = "text";
export const big = "bigint";

/** Projects, keys, sealed secrets, SSO and the audit log. */
export async function copyTenants(db: Database, tx: SQL, reseal: Reseal): Promise<Record<string, number>> {
  return {
    projects: await copy(db, tx, {
      table: "projects", select: "SELECT id, name, plan, billing_mode, credit_limit, policy, created_at FROM projects ORDER BY created_at, id",
      columns: { id: text, name: text, plan: text, billing_mode: text, credit_limit: big, policy: text, created_at: big },
      // USD in SQLite, nano-USD in PostgreSQL, rounded as the PostgreSQL project store does.
      map: (r) => ({ ...r, credit_limit: r.credit_limit === null ? null : Math.round(Number(r.credit_limit) * NANO) }),
    }),
    api_keys: await copy(db, tx, {
      table: "api_keys", select: "SELECT * FROM api_keys ORDER BY created_at, id",
      columns: { id: text, project_id: text, name: text, key_hash: text, mode: text, scopes: text, byok: BOOL, ip_allowlist: text, created_at: big, revoked_at: big },
    }),
    provider_keys: await copy(db, tx, {
      table: "provider_keys", select: "SELECT * FROM provider_keys ORDER BY project_id, provider",
      columns: { project_id: text, provider: text, sealed_key: text, base_url: text, updated_at: big },
      map: (r) => ({ ...r, sealed_key: reseal(String(r.sealed_key), `the ${String(r.provider)} key of project ${String(r.project_id)}`) }),
    }),
    project_sso: await copy(db, tx, {
      table: "project_sso", select: "SELECT * FROM project_sso ORDER BY project_id",
      columns: { project_id: text, issuer: text, client_id: text, client_secret: text, allowed_domains: text, created_at: big, updated_at: big },
      map: (r) => ({ ...r, client_secret: reseal(String(r.client_secret), `the SSO client secret of project ${String(r.project_id)}`) }),
    }),
    audit_log: await copy(db, tx, {
      table: "audit_log", select: "SELECT * FROM audit_log ORDER BY id",
      columns: { id: text, created_at: big, actor_type: text, actor_id: text, actor_email: text, source_ip: text, action: text, project_id: text, target: text, outcome: text, status: "integer", details: text },
    }),
  };
}

const LEDGER: Columns = {
  seq: big, project_id: text, kind: text, amount: big, request_id: text, model: text, input_tokens: big, output_tokens: big,
  cost: big, saved: big, byok: BOOL, note: text, created_at: big,
};

/** balance = credits - charges, per project (docs/billing.md "The ledger"). */
const BALANCES = "SELECT project_id, sum(CASE kind WHEN 'credit' THEN amount WHEN 'charge' THEN -amount ELSE 0 END) AS balance FROM ledger GROUP BY project_id";

/** The ledger (its seq kept), a release for each hold a stopped gw left open, the accounts, this
 * day's and month's spend counters, and the budget events already fired. */
export async function copyMoney(db: Database, tx: SQL, now: number): Promise<Record<string, number>> {
  const ledger = await copy(db, tx, { table: "ledger", select: `SELECT ${Object.keys(LEDGER).join(", ")} FROM ledger ORDER BY seq`, columns: LEDGER, overriding: true });
  await tx`SELECT setval(pg_get_serial_sequence('ledger', 'seq'), (SELECT max(seq) FROM ledger))`;
  // Single-node gw releases these at its next start (their requests died with it): so does this.
  const released = await copy(db, tx, {
    table: "ledger", select: "SELECT project_id, request_id, amount FROM ledger_open_holds ORDER BY created_at, request_id",
    columns: { project_id: text, kind: text, amount: big, request_id: text, note: text, created_at: big },
    map: (r) => ({ ...r, kind: "release", note: "migrate-to-postgres: open hold of a stopped gw", created_at: now }),
  });
  await tx.unsafe(`INSERT INTO accounts (project_id, balance) ${BALANCES}`);
  await tx`INSERT INTO accounts (project_id) SELECT id FROM projects ON CONFLICT DO NOTHING`;
  // Checked against SQLite's own sums before anything commits: a difference rolls all of it back.
  const expected = new Map(db.query<{ project_id: string; balance: number }, []>(BALANCES).all().map((r) => [r.project_id, r.balance]));
  const got: Array<{ project_id: string; balance: string }> = await tx`SELECT project_id, balance FROM accounts`;
  for (const a of got) {
    if (Number(a.balance) !== (expected.get(a.project_id) ?? 0)) throw new Error(`Project ${a.project_id}: balance ${a.balance} nano-USD in PostgreSQL, ${expected.get(a.project_id) ?? 0} in SQLite. Nothing was copied.`);
  }
  // The periods' counters as SQLite's accounts derive them: charges since the period's start.
  let counters = 0;
  for (const [period, key, start] of [["daily", dayKey(now), dayStart(now)], ["monthly", monthKey(now), monthStart(now)]] as const) {
    const rows = await tx`INSERT INTO spend_counters (project_id, period, period_key, spent, requests)
      SELECT project_id, ${period}, ${key}, sum(amount), count(*) FROM ledger WHERE kind = 'charge' AND created_at >= ${start}
      GROUP BY project_id RETURNING 1`;
    counters += rows.length;
  }
  const budgetEvents = await copy(db, tx, {
    table: "budget_events", select: "SELECT project_id, period, period_key, action, budget, spent, reserved, request_id, created_at FROM budget_events ORDER BY id",
    columns: { project_id: text, period: text, period_key: text, action: text, budget: big, spent: big, reserved: big, request_id: text, created_at: big },
  });
  return { ledger, holds_released: released, accounts: got.length, spend_counters: counters, budget_events: budgetEvents };
}

/** Idempotency results not yet expired (a claim left running becomes not_kept, as at a single-node
 * start) and feedback. */
export async function copyResults(db: Database, tx: SQL, now: number): Promise<Record<string, number>> {
  return {
    idempotency_keys: await copy(db, tx, {
      table: "idempotency_keys",
      select: `SELECT project_id, key, fingerprint, request_id, CASE state WHEN 'running' THEN 'not_kept' ELSE state END AS state,
        status, headers, body, created_at, expires_at FROM idempotency_keys WHERE expires_at > ? ORDER BY project_id, key`,
      params: [now],
      columns: { project_id: text, key: text, fingerprint: text, request_id: text, state: text, status: "integer", headers: text, body: [text, "decode(r.body, 'base64')"], created_at: big, expires_at: big },
      map: (r) => ({ ...r, body: r.body instanceof Uint8Array || typeof r.body === "string" ? Buffer.from(r.body).toString("base64") : null }),
    }),
    feedback: await copy(db, tx, {
      table: "feedback", select: "SELECT * FROM feedback ORDER BY project_id, request_id",
      columns: { project_id: text, request_id: text, model_id: text, task: text, test: BOOL, counted: BOOL, rating: "smallint", created_at: big, updated_at: big },
    }),
  };
}

/** Starts of the UTC days the request log touches: their partitions must exist before the copy. */
export function logDays(db: Database): number[] {
  return db.query<{ day: number }, [number]>("SELECT DISTINCT created_at - created_at % ? AS day FROM requests ORDER BY day")
    .all(DAY_MS).map((r) => r.day);
}

const LOG_TYPES: Record<string, string | [string, string]> = {
  created_at: big, input_tokens: big, output_tokens: big, cost: big, saved: big, status: "integer", latency_ms: "integer",
  ttft_ms: "integer", overhead_ms: "double precision", fallbacks: "integer", stream: BOOL, test: BOOL,
  tags: ["jsonb", "ARRAY(SELECT jsonb_array_elements_text(r.tags))"],
};
const LOG_COLUMNS: Columns = Object.fromEntries(COLUMNS.map((c) => [c, LOG_TYPES[c] ?? text]));
const COST = COLUMNS.indexOf("cost");
const SAVED = COLUMNS.indexOf("saved");

/** The request log with its traces, the traces' bytes, and the minute rollups of the rows. */
export async function copyLog(db: Database, tx: SQL, progress: (rows: number) => void = () => {}): Promise<Record<string, number>> {
  const select = `SELECT ${COLUMNS.map((c) => `r.${c}`).join(", ")}, t.data AS trace FROM requests r
    LEFT JOIN traces t ON t.project_id = r.project_id AND t.request_id = r.id ORDER BY r.project_id, r.id`;
  let rows: Row[] = [];
  let values: SqlValue[][] = [];
  let traces: Row[] = [];
  const counts = { requests: 0, traces: 0 };
  const flush = async () => {
    await insertPage(tx, "requests", LOG_COLUMNS, rows);
    await insertPage(tx, "traces", { project_id: text, request_id: text, created_at: big, data: text }, traces);
    await addRollups(tx, values);
    counts.requests += rows.length;
    counts.traces += traces.length;
    rows = [];
    values = [];
    traces = [];
  };
  for (const r of db.query<Row, []>(select).iterate()) {
    // USD floats in SQLite's log, nano-USD in PostgreSQL's, rounded as its log store rounds them.
    const v = COLUMNS.map((c) => r[c] as SqlValue);
    v[COST] = Math.round((v[COST] as number) * NANO);
    v[SAVED] = Math.round((v[SAVED] as number) * NANO);
    values.push(v);
    rows.push({ ...r, cost: v[COST], saved: v[SAVED], tags: JSON.parse(String(r.tags)) as unknown, trace: undefined });
    if (typeof r.trace === "string") traces.push({ project_id: r.project_id, request_id: r.id, created_at: r.created_at, data: r.trace });
    if (rows.length < PAGE) continue;
    await flush();
    if (counts.requests % PROGRESS_EVERY === 0) progress(counts.requests);
  }
  await flush();
  await tx`INSERT INTO trace_usage (project_id, bytes) SELECT project_id, sum(octet_length(data)) FROM traces GROUP BY project_id`;
  const [minutes] = await tx`SELECT count(*)::int AS n FROM metrics_rollups`;
  return { ...counts, metrics_rollups: Number(minutes?.n ?? 0) };
}
