// The request log on PostgreSQL (docs/scale-out.md "Request log and metrics"): a batch is one
// transaction of set-based inserts from one JSON parameter each, into the days' partitions (made on
// first use), skipping rows a retry already wrote; their rollups are added in the same transaction.
import type { SQL } from "bun";
import { parseStored, type JsonObject } from "../../lib/json.ts";
import { COLUMNS, type PreparedRow, type SqlValue } from "../log-batch-codec.ts";
import type { LogQuery, RequestLogStore } from "../log-store.ts";
import type { RequestRecord } from "../request-record.ts";
import { decodeTrace } from "../trace-codec.ts";
import { bounded, type Postgres } from "./connect.ts";
import { addRollups, rollupTotals } from "./metrics-rollups.ts";
import { ensurePartitions } from "./partitions.ts";

const DAY_MS = 86_400_000;
/** Log amounts are USD floats; PostgreSQL keeps integer nano-USD. */
export const NANO = 1e9;
const COST = COLUMNS.indexOf("cost");
const SAVED = COLUMNS.indexOf("saved");
const TAGS = COLUMNS.indexOf("tags");
const STREAM = COLUMNS.indexOf("stream");
const TEST = COLUMNS.indexOf("test");
const CREATED = COLUMNS.indexOf("created_at");

const TYPES: Record<string, string> = {
  created_at: "bigint", input_tokens: "bigint", output_tokens: "bigint", cost: "bigint", saved: "bigint",
  status: "integer", latency_ms: "integer", ttft_ms: "integer", overhead_ms: "double precision",
  fallbacks: "integer", tags: "jsonb", stream: "boolean", test: "boolean",
};
const RECORD = COLUMNS.map((c) => `${c} ${TYPES[c] ?? "text"}`).join(", ");
const SELECTED = COLUMNS.map((c) => (c === "tags" ? "ARRAY(SELECT jsonb_array_elements_text(r.tags))" : `r.${c}`)).join(", ");
// Only a duplicate key (a retry) is skipped; any other failure fails the statement.
const INSERT_ROWS = `INSERT INTO requests (${COLUMNS.join(", ")}) SELECT ${SELECTED}
  FROM jsonb_to_recordset($1::text::jsonb) AS r(${RECORD}) ON CONFLICT DO NOTHING RETURNING project_id, id`;
const INSERT_TRACES = `INSERT INTO traces (project_id, request_id, created_at, data)
  SELECT project_id, request_id, created_at, data FROM jsonb_to_recordset($1::text::jsonb)
  AS t(project_id text, request_id text, created_at bigint, data text) ON CONFLICT DO NOTHING`;
// Sorted by project: concurrent batches take the rows' locks in one order.
const ADD_USAGE = `INSERT INTO trace_usage (project_id, bytes)
  SELECT project_id, bytes FROM jsonb_to_recordset($1::text::jsonb) AS u(project_id text, bytes bigint) ORDER BY project_id
  ON CONFLICT (project_id) DO UPDATE SET bytes = trace_usage.bytes + excluded.bytes`;

/** A row's values as stored: nano-USD, booleans, tags as a JSON array. */
function storedRow(values: readonly SqlValue[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < COLUMNS.length; i++) row[COLUMNS[i]!] = values[i];
  row.cost = Math.round((values[COST] as number) * NANO);
  row.saved = Math.round((values[SAVED] as number) * NANO);
  row.tags = JSON.parse(values[TAGS] as string);
  row.stream = values[STREAM] === 1;
  row.test = values[TEST] === 1;
  return row;
}

/** SQLSTATE class 23 (integrity): this row can never be written as it is. */
const isConstraint = (err: unknown): boolean => /^23/.test(String((err as { errno?: unknown })?.errno ?? ""));

const READ_COLUMNS = `id, project_id, key_id, trace_id, created_at::float8 AS created_at, endpoint, requested_model,
  selected_model, provider, task, task_subtype, input_tokens::float8 AS input_tokens, output_tokens::float8 AS output_tokens,
  cost::float8 AS cost, saved::float8 AS saved, cache, status, error_code, error_message, error_category, latency_ms,
  ttft_ms, overhead_ms, fallbacks, workflow_id, step, tags, stream, test`;

interface ReadRow {
  id: string; project_id: string; key_id: string | null; trace_id: string; created_at: number; endpoint: string;
  requested_model: string | null; selected_model: string | null; provider: string | null; task: string | null;
  task_subtype: string | null; input_tokens: number; output_tokens: number; cost: number; saved: number;
  cache: string | null; status: number; error_code: string | null; error_message: string | null;
  error_category: string | null; latency_ms: number; ttft_ms: number | null; overhead_ms: number | null;
  fallbacks: number; workflow_id: string | null; step: string | null; tags: string[]; stream: boolean; test: boolean;
}

const fromRow = (r: ReadRow, trace: JsonObject | null): RequestRecord => ({
  id: r.id, projectId: r.project_id, keyId: r.key_id, traceId: r.trace_id, createdAt: r.created_at,
  endpoint: r.endpoint, requestedModel: r.requested_model, selectedModel: r.selected_model, provider: r.provider,
  task: r.task, taskSubtype: r.task_subtype, inputTokens: r.input_tokens, outputTokens: r.output_tokens,
  cost: r.cost / NANO, saved: r.saved / NANO, cache: r.cache, status: r.status, errorCode: r.error_code,
  errorMessage: r.error_message, errorCategory: r.error_category, latencyMs: r.latency_ms, ttftMs: r.ttft_ms,
  overheadMs: r.overhead_ms, fallbacks: r.fallbacks, workflowId: r.workflow_id, step: r.step, tags: [...r.tags],
  stream: r.stream, test: r.test, trace,
});

/** The request log on one pool. Charges are not carried: on PostgreSQL the money store's settle
 * writes them (unique per request id), so a row with ledger entries is a wiring error. */
export function postgresLogStore(pg: Postgres): RequestLogStore {
  /** Day starts whose partitions exist (made by this instance or found). */
  const days = new Set<number>();

  async function ensureDays(rows: PreparedRow[]): Promise<void> {
    for (const r of rows) {
      const t = r.values[CREATED] as number;
      const day = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
      if (days.has(day)) continue;
      await ensurePartitions(pg.sql, day, 0);
      days.add(day);
    }
  }

  // Per-project trace budget (docs/observability.md "Trace storage"): over it, rows are still
  // written but their traces are not. The usage rows are locked in project order, so instances
  // writing at once check the budget one after the other.
  let traceBudget = 0;
  type TraceRow = { project_id: string; request_id: string; created_at: SqlValue | undefined; data: string };
  async function withinBudget(tx: SQL, traces: TraceRow[]): Promise<TraceRow[]> {
    if (traceBudget <= 0 || traces.length === 0) return traces;
    const projects = JSON.stringify([...new Set(traces.map((t) => t.project_id))]);
    const usage: Array<{ project_id: string; bytes: number }> = await tx.unsafe(`SELECT project_id, bytes::float8 AS bytes
      FROM trace_usage WHERE project_id IN (SELECT jsonb_array_elements_text($1::text::jsonb)) ORDER BY project_id FOR UPDATE`, [projects]);
    const used = new Map(usage.map((u) => [u.project_id, u.bytes]));
    return traces.filter((t) => {
      const bytes = used.get(t.project_id) ?? 0;
      if (bytes >= traceBudget) return false;
      used.set(t.project_id, bytes + Buffer.byteLength(t.data));
      return true;
    });
  }

  /** One transaction: the rows not yet stored, their traces and trace bytes, their rollups. */
  const writeAll = (rows: PreparedRow[]) => pg.sql.begin(async (tx: SQL) => {
    const inserted: Array<{ project_id: string; id: string }> = await tx.unsafe(INSERT_ROWS, [JSON.stringify(rows.map((r) => storedRow(r.values)))]);
    if (inserted.length === 0) return;
    const fresh = new Set(inserted.map((r) => `${r.project_id}\n${r.id}`));
    const now = rows.filter((r) => fresh.has(`${r.projectId}\n${r.id}`));
    const traces = await withinBudget(tx, now.filter((r) => r.trace !== null)
      .map((r) => ({ project_id: r.projectId, request_id: r.id, created_at: r.values[CREATED], data: r.trace! })));
    if (traces.length > 0) {
      await tx.unsafe(INSERT_TRACES, [JSON.stringify(traces)]);
      const bytes = new Map<string, number>();
      for (const t of traces) bytes.set(t.project_id, (bytes.get(t.project_id) ?? 0) + Buffer.byteLength(t.data));
      await tx.unsafe(ADD_USAGE, [JSON.stringify([...bytes].map(([project_id, b]) => ({ project_id, bytes: b })))]);
    }
    await addRollups(tx, now.map((r) => {
      const v = [...r.values];
      v[COST] = Math.round((v[COST] as number) * NANO);
      v[SAVED] = Math.round((v[SAVED] as number) * NANO);
      return v;
    }));
  });

  /** Writes the rows; when one breaks a constraint, each half alone, down to that row, which is
   * reported: a few transactions, each within its own bound, rather than one per row. */
  async function writeOrSplit(rows: PreparedRow[]): Promise<string[]> {
    try {
      await bounded(pg, "request log batch", () => writeAll(rows));
      return [];
    } catch (err) {
      if (!isConstraint(err)) throw err;
    }
    if (rows.length === 1) return [rows[0]!.id];
    const half = rows.length >> 1;
    return [...(await writeOrSplit(rows.slice(0, half))), ...(await writeOrSplit(rows.slice(half)))];
  }

  async function writeBatch(rows: PreparedRow[]): Promise<string[]> {
    if (rows.length === 0) return [];
    if (rows.some((r) => r.ledger !== undefined)) throw new Error("request log rows carry ledger entries: on PostgreSQL charges are the money store's");
    try {
      await bounded(pg, "request log partitions", () => ensureDays(rows));
      return await writeOrSplit(rows);
    } catch (err) {
      // Retention may have dropped a day this instance had seen: look again next time.
      days.clear();
      throw err;
    }
  }

  async function list(projectId: string, q: LogQuery) {
    const where = ["project_id = $1"];
    const params: Array<string | number> = [projectId];
    const term = (sql: string, value: string | number | undefined, close = "") => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${sql} $${params.length}${close}`);
    };
    // created_at bounds prune the scan to the days' partitions; ids sort by time within them.
    term("created_at >=", q.from);
    term("created_at <=", q.to);
    term("id <", q.after);
    term("selected_model =", q.model);
    term("status =", q.status);
    term("trace_id =", q.traceId);
    term("workflow_id =", q.workflowId);
    term("provider =", q.provider);
    term("error_category =", q.errorCategory);
    term("task =", q.task);
    // The GIN index serves containment, not `= ANY`.
    term("tags @> ARRAY[", q.tag, "]::text[]");
    if (q.cache === "miss") where.push("cache IS NULL");
    else term("cache =", q.cache);
    if (q.test !== undefined) where.push(q.test ? "test" : "NOT test");
    params.push(q.limit + 1);
    const found: ReadRow[] = await bounded(pg, "request log page", () =>
      pg.sql.unsafe(`SELECT ${READ_COLUMNS} FROM requests WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $${params.length}`, params));
    return { rows: found.slice(0, q.limit).map((r) => fromRow(r, null)), hasMore: found.length > q.limit };
  }

  async function get(projectId: string, id: string): Promise<RequestRecord | null> {
    return bounded(pg, "request log row", async () => {
      const [row]: ReadRow[] = await pg.sql.unsafe(`SELECT ${READ_COLUMNS} FROM requests WHERE project_id = $1 AND id = $2`, [projectId, id]);
      if (!row) return null;
      const [trace]: Array<{ data: string }> = await pg.sql`SELECT data FROM traces
        WHERE project_id = ${projectId} AND request_id = ${id} AND created_at = ${row.created_at}`;
      return fromRow(row, trace ? decodeTrace(parseStored<JsonObject | null>(trace.data, null)) : null);
    });
  }

  return {
    writeBatch, list, get,
    totals: (projectId, from, to) => rollupTotals(pg, projectId, from, to),
    setTraceBudget: (bytes) => void (traceBudget = bytes),
    async workflowCost(projectId, workflowId) {
      const [row]: Array<{ total: number | null }> = await bounded(pg, "workflow cost", () => pg.sql`SELECT sum(cost)::float8 AS total
        FROM requests WHERE project_id = ${projectId} AND workflow_id = ${workflowId}`);
      return (row?.total ?? 0) / NANO;
    },
  };
}
