// The request log on PostgreSQL (docs/scale-out.md "Request log and metrics"): a batch is one call of
// gw_write_log (migration 007), or with the charges its rows carry gw_write_log_settled (008): one round
// trip and one transaction, skipping rows a retry already wrote, with their rollups. Their traces
// follow in the trace writer's next batch (trace-writer.ts), so an answer waits for its row only.
import { parseStored, type JsonObject } from "../../lib/json.ts";
import { COLUMNS, type PreparedRow, type SqlValue } from "../log-batch-codec.ts";
import type { LogQuery, RequestLogStore } from "../log-store.ts";
import type { PeriodKey } from "../money-store.ts";
import type { LedgerEntry } from "../repos/ledger-types.ts";
import type { RequestRecord } from "../request-record.ts";
import { decodeTrace } from "../trace-codec.ts";
import { bounded, type Postgres } from "./connect.ts";
import { minuteDeltas, rollupTotals, rowDeltas } from "./metrics-rollups.ts";
import { ensurePartitions } from "./partitions.ts";
import { TraceWriter, type QueuedTrace, type TraceWriterOptions } from "./trace-writer.ts";

const DAY_MS = 86_400_000;
/** Log amounts are USD floats; PostgreSQL keeps integer nano-USD. */
export const NANO = 1e9;
const COST = COLUMNS.indexOf("cost");
const SAVED = COLUMNS.indexOf("saved");
const TAGS = COLUMNS.indexOf("tags");
const STREAM = COLUMNS.indexOf("stream");
const TEST = COLUMNS.indexOf("test");
const CREATED = COLUMNS.indexOf("created_at");

// Rows, traces and rollup counts as JSON text (jsonb takes no implicit cast from a text parameter).
const WRITE = "SELECT gw_write_log($1::text::jsonb, $2::text::jsonb, $3::text::jsonb, $4::text::jsonb, $5::bigint) AS n";
const WRITE_SETTLED = "SELECT gw_write_log_settled($1::text::jsonb, $2::text::jsonb, $3::text::jsonb, $4::text::jsonb, $5::bigint, $6::text::jsonb) AS odd";

/** A request's charge carried by its log row (multi-instance, billing/shared-holds.ts): settled in
 * the row's call as gw_settle does, so the charge and the row commit together. */
export interface CarriedSettle extends LedgerEntry {
  kind: "charge" | "cache";
  requestId: string;
  /** What may be spent past the balance (0 prepaid, the credit limit), null: unchecked. */
  allowance: number | null;
  /** The budget periods the charge counts in. */
  periods: PeriodKey[];
  /** Whether the request holds money (a reservation to close). A cache answer known to hold none
   * writes only its ledger row (migration 015); absent: settled in full. */
  held?: boolean;
}

export const isCarriedSettle = (e: LedgerEntry): e is CarriedSettle =>
  (e.kind === "charge" || e.kind === "cache") && typeof e.requestId === "string" && "periods" in e && "allowance" in e;

/** A settle whose amount differs from its ask: cut to what the credit covers, or null when the
 * request was settled or released before (its hold closed by age). */
export interface SettleDiffers {
  request_id: string;
  charge: number;
  charged: number | null;
}

export interface PostgresLogOptions {
  /** Told of carried charges that were cut or found settled (rare: the caller predicts the amount). */
  onSettleDiffers?: (odd: SettleDiffers[]) => void;
  traces?: TraceWriterOptions;
}

/** A read waits at most this long for traces still queued on this instance (read-your-writes). */
const TRACE_READ_WAIT_MS = 2_000;

const settleArg = (e: CarriedSettle) => ({
  project_id: e.projectId, request_id: e.requestId, charge: e.amount, allowance: e.allowance,
  cache_saved: e.kind === "cache" ? (e.saved ?? 0) : null, model: e.model ?? null, input_tokens: e.inputTokens ?? 0,
  output_tokens: e.outputTokens ?? 0, cost: e.cost ?? 0, byok: e.byok ?? false, periods: e.periods, now: e.createdAt,
  held: e.held ?? null,
});

/** The carried charges of the rows; any other ledger entry (or an empty list) is a wiring error:
 * on PostgreSQL every other ledger row is the money store's. */
function settlesOf(rows: readonly PreparedRow[]): CarriedSettle[] {
  const out: CarriedSettle[] = [];
  for (const r of rows) {
    if (r.ledger === undefined) continue;
    if (r.ledger.length === 0 || !r.ledger.every(isCarriedSettle)) throw new Error("request log rows carry ledger entries: on PostgreSQL charges are the money store's");
    out.push(...r.ledger);
  }
  return out;
}

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

const errnoOf = (err: unknown): string => String((err as { errno?: unknown })?.errno ?? "");
/** SQLSTATE class 23 (integrity): this row can never be written as it is. */
const isConstraint = (err: unknown): boolean => /^23/.test(errnoOf(err));
/** gw_write_log found rows stored already and wants each row's rollup counts (migration 007). */
const NEEDS_ROW_DELTAS = "GW001";

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
export function postgresLogStore(pg: Postgres, options: PostgresLogOptions = {}): RequestLogStore {
  /** Day starts whose partitions exist (made by this instance or found). */
  const days = new Set<number>();

  const dayOf = (r: PreparedRow): number => {
    const t = r.values[CREATED] as number;
    return t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
  };

  async function ensureDays(rows: PreparedRow[]): Promise<void> {
    for (const r of rows) {
      const day = dayOf(r);
      if (days.has(day)) continue;
      await ensurePartitions(pg.sql, day, 0);
      days.add(day);
    }
  }

  // Per-project trace budget (docs/observability.md "Trace storage"): over it, rows are still
  // written but their traces are not; gw_write_traces checks it with the usage rows locked.
  let traceBudget = 0;
  const traceWriter = new TraceWriter(pg, () => traceBudget, options.traces);

  /** One call: the rows not yet stored and their rollups; once it commits, their traces are queued.
   * Each row's own rollup counts are sent only when the call says some rows were stored already (a retry). */
  async function writeAll(rows: PreparedRow[], settles: CarriedSettle[]): Promise<void> {
    const stored = rows.map((r) => storedRow(r.values));
    const traces: QueuedTrace[] = [];
    for (const r of rows) {
      if (r.trace !== null) traces.push({ project_id: r.projectId, request_id: r.id, created_at: r.values[CREATED], data: r.trace, bytes: Buffer.byteLength(r.trace) });
    }
    const values = rows.map((r, i) => {
      const v = [...r.values];
      v[COST] = stored[i]!.cost as number;
      v[SAVED] = stored[i]!.saved as number;
      return v;
    });
    const args = [JSON.stringify(stored), "[]", JSON.stringify(minuteDeltas(values)), null, 0];
    if (settles.length > 0) args.push(JSON.stringify(settles.map(settleArg)));
    const write = async (): Promise<void> => {
      if (settles.length === 0) return void (await pg.sql.unsafe(WRITE, args));
      const [row]: Array<{ odd: SettleDiffers[] | null }> = await pg.sql.unsafe(WRITE_SETTLED, args);
      if (row?.odd && row.odd.length > 0) options.onSettleDiffers?.(row.odd);
    };
    try {
      await write();
    } catch (err) {
      if (errnoOf(err) !== NEEDS_ROW_DELTAS) throw err;
      args[3] = JSON.stringify(rowDeltas(rows.map((r, i) => ({ id: r.id, values: values[i]! }))));
      await write();
    }
    // A retried row's trace may be stored already: gw_write_traces skips it.
    traceWriter.add(traces);
  }

  /** Writes the rows; when one breaks a constraint, each half alone, down to that row, which is
   * reported: a few transactions, each within its own bound, rather than one per row. */
  async function writeOrSplit(rows: PreparedRow[]): Promise<string[]> {
    try {
      await bounded(pg, "request log batch", () => writeAll(rows, settlesOf(rows)));
      return [];
    } catch (err) {
      if (!isConstraint(err)) throw err;
    }
    if (rows.length === 1) {
      // The row can never be written; its charge still is (a constraint of the charge too drops both).
      const settles = settlesOf(rows);
      if (settles.length > 0) {
        try {
          await bounded(pg, "request charge", () => writeAll([], settles));
        } catch (err) {
          if (!isConstraint(err)) throw err;
        }
      }
      return [rows[0]!.id];
    }
    const half = rows.length >> 1;
    return [...(await writeOrSplit(rows.slice(0, half))), ...(await writeOrSplit(rows.slice(half)))];
  }

  async function writeBatch(rows: PreparedRow[]): Promise<string[]> {
    if (rows.length === 0) return [];
    settlesOf(rows);
    try {
      // Known days cost no call (nor the bound's timer): almost every batch.
      if (!rows.every((r) => days.has(dayOf(r)))) await bounded(pg, "request log partitions", () => ensureDays(rows));
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
    if (traceWriter.pending > 0) await traceWriter.drain(TRACE_READ_WAIT_MS);
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
    flushTraces: (ms) => traceWriter.drain(ms),
    async workflowCost(projectId, workflowId) {
      const [row]: Array<{ total: number | null }> = await bounded(pg, "workflow cost", () => pg.sql`SELECT sum(cost)::float8 AS total
        FROM requests WHERE project_id = ${projectId} AND workflow_id = ${workflowId}`);
      return (row?.total ?? 0) / NANO;
    },
  };
}
