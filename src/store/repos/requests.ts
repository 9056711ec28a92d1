// Request log (docs/api.md "Request log"); a row, its trace, its metrics rollups and its ledger
// charge are written in one transaction. Every read is scoped by project.
import type { Database } from "bun:sqlite";
import { parseStored, type JsonObject } from "../../lib/json.ts";
import { COLUMNS, decodeLogBatch, type PreparedRow, type SqlValue } from "../log-batch-codec.ts";
import { tracesRepo, type TracesRepo } from "./traces.ts";
import { metricsRepo, type MetricsRepo } from "./metrics.ts";
import { withModelRollups } from "./model-rollups.ts";
import { withStatusRollups } from "./status-rollups.ts";
import { ledgerRepo, type LedgerRepo } from "./ledger.ts";
import type { RequestRecord } from "../request-record.ts";
import type { RequestFilters } from "../../schema/requests.ts";
import type { LogFilters } from "../../schema/dashboard-requests.ts";
import { planFilteredPage, type SqlParams } from "./request-filters.ts";

export type { RequestRecord };

interface RequestRow {
  id: string; project_id: string; key_id: string | null; trace_id: string; created_at: number;
  endpoint: string; requested_model: string | null; selected_model: string | null; provider: string | null;
  task: string | null; task_subtype: string | null; input_tokens: number; output_tokens: number;
  cost: number; saved: number; cache: string | null; status: number; error_code: string | null;
  error_message: string | null; error_category: string | null; latency_ms: number; ttft_ms: number | null;
  overhead_ms: number | null; fallbacks: number; workflow_id: string | null; step: string | null;
  tags: string; stream: number; test: number;
}

const fromRow = (r: RequestRow, trace: JsonObject | null): RequestRecord => ({
  id: r.id, projectId: r.project_id, keyId: r.key_id, traceId: r.trace_id, createdAt: r.created_at,
  endpoint: r.endpoint, requestedModel: r.requested_model, selectedModel: r.selected_model,
  provider: r.provider, task: r.task, taskSubtype: r.task_subtype, inputTokens: r.input_tokens,
  outputTokens: r.output_tokens, cost: r.cost, saved: r.saved, cache: r.cache, status: r.status,
  errorCode: r.error_code, errorMessage: r.error_message, errorCategory: r.error_category,
  latencyMs: r.latency_ms, ttftMs: r.ttft_ms, overheadMs: r.overhead_ms, fallbacks: r.fallbacks,
  workflowId: r.workflow_id, step: r.step, tags: parseStored<string[]>(r.tags, []),
  stream: r.stream === 1, test: r.test === 1, trace,
});

/** Rows per multi-row INSERT: one statement step for many rows is cheaper than one per row
 * (16 x 29 parameters stays far below SQLite's limit). */
const ROWS_PER_STATEMENT = 16;

const isConstraintError = (err: unknown): boolean =>
  typeof (err as { code?: unknown })?.code === "string" && (err as { code: string }).code.startsWith("SQLITE_CONSTRAINT");

/** A group insert that wrote some rows of the group but not others (a retried batch's rows next
 * to new ones): which ones is unknown, so the batch is redone row by row for exact rollups. */
class PartialGroup extends Error {}

export function requestsRepo(db: Database, traces: TracesRepo = tracesRepo(db), rollups: MetricsRepo = metricsRepo(db), ledger: LedgerRepo = ledgerRepo(db)) {
  // Only a duplicate id (a retried batch) is skipped; any other constraint failure is an error,
  // never a silently dropped row (OR IGNORE would also swallow NOT NULL violations).
  const rowTuple = `(${COLUMNS.map(() => "?").join(", ")})`;
  const insertRows = (n: number) =>
    db.query<unknown, SqlValue[]>(`INSERT INTO requests (${COLUMNS.join(", ")}) VALUES ${Array(n).fill(rowTuple).join(", ")} ON CONFLICT DO NOTHING`);
  const insertRow = insertRows(1);
  const insertGroup = insertRows(ROWS_PER_STATEMENT);
  const byId = db.query<RequestRow, [string, string]>("SELECT * FROM requests WHERE id = ? AND project_id = ?");
  // Per-project trace budget (docs/observability.md "Trace storage"): over it, rows are still
  // written but their traces are not. trace_usage is kept by triggers (migration 008).
  let traceBudget = 0;
  let tracesOverBudget = 0;
  const usageOf = db.query<{ bytes: number }, [string]>("SELECT bytes FROM trace_usage WHERE project_id = ?");
  /** The rows, with the traces of projects over their budget left out (counted as they go). */
  function withinBudget(rows: PreparedRow[]): PreparedRow[] {
    if (traceBudget <= 0) return rows;
    const used = new Map<string, number>();
    return rows.map((r) => {
      if (r.trace === null) return r;
      const bytes = used.get(r.projectId) ?? usageOf.get(r.projectId)?.bytes ?? 0;
      if (bytes >= traceBudget) return tracesOverBudget++, { ...r, trace: null };
      used.set(r.projectId, bytes + r.trace.length);
      return r;
    });
  }

  // A skipped duplicate was counted (and charged) when it was first written: only rows inserted now
  // are rolled up and have their ledger entries written, so a crash or a retry never splits them.
  const insertAll = db.transaction((all: PreparedRow[]) => {
    const rows = withinBudget(all);
    const rollup = withStatusRollups(db, withModelRollups(db, rollups.batch()));
    const inserted = (r: PreparedRow): void => {
      rollup.add(r.values);
      if (r.ledger) ledger.appendInTransaction(r.ledger);
    };
    let i = 0;
    for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
      const group = rows.slice(i, i + ROWS_PER_STATEMENT);
      const { changes } = insertGroup.run(...group.flatMap((r) => r.values));
      if (changes === group.length) for (const r of group) inserted(r);
      else if (changes !== 0) throw new PartialGroup();
      traces.insertMany(group);
    }
    for (; i < rows.length; i++) {
      const r = rows[i]!;
      if (insertRow.run(...r.values).changes === 1) inserted(r);
      if (r.trace !== null) traces.insert(r.id, r.projectId, r.trace);
    }
    rollup.write();
  });
  const insertSingle = db.transaction((r: PreparedRow) => insertAll([r]));
  // IMMEDIATE: the rollups are read, then written; the write lock is taken (and waited for) first.

  /** Writes a batch; returns the ids of rows that violate a constraint and can never be written.
   * Any other failure (busy, disk) throws, so the whole batch is retried. */
  function insertPrepared(rows: PreparedRow[]): string[] {
    try {
      insertAll.immediate(rows);
      return [];
    } catch (err) {
      if (!isConstraintError(err) && !(err instanceof PartialGroup)) throw err;
    }
    const rejected: string[] = [];
    for (const r of rows) {
      try {
        insertSingle.immediate(r);
      } catch (err) {
        if (!isConstraintError(err)) throw err;
        rejected.push(r.id);
        // The row cannot be stored; its charge still is (money is never dropped with a log row),
        // once however often the batch is retried.
        if (r.ledger) ledger.appendOnce(r.ledger);
      }
    }
    return rejected;
  }

  // Retention deletes by the primary key and the traces' key, both (project, request id); ids sort
  // by time, so "older than" is an id range and needs no index of its own.
  const nthOlderRow = db.query<{ id: string }, [string, string, number]>(
    "SELECT id FROM requests WHERE project_id = ? AND id < ? ORDER BY id LIMIT 1 OFFSET ?",
  );
  const deleteRowsUpTo = db.query<unknown, [string, string]>("DELETE FROM requests WHERE project_id = ? AND id <= ?");
  const deleteRowsBefore = db.query<unknown, [string, string]>("DELETE FROM requests WHERE project_id = ? AND id < ?");
  const nthOlderTrace = db.query<{ id: string }, [string, string, number]>(
    "SELECT request_id AS id FROM traces WHERE project_id = ? AND request_id < ? ORDER BY request_id LIMIT 1 OFFSET ?",
  );
  const deleteTracesUpTo = db.query<unknown, [string, string]>("DELETE FROM traces WHERE project_id = ? AND request_id <= ?");
  const deleteTracesBefore = db.query<unknown, [string, string]>("DELETE FROM traces WHERE project_id = ? AND request_id < ?");
  /** Deletes at most `limit` of the oldest rows (and of traces) below `beforeId`, in one transaction. */
  const prune = db.transaction((projectId: string, beforeId: string, limit: number) => {
    const lastRow = nthOlderRow.get(projectId, beforeId, limit - 1);
    const rows = lastRow ? deleteRowsUpTo.run(projectId, lastRow.id) : deleteRowsBefore.run(projectId, beforeId);
    const lastTrace = nthOlderTrace.get(projectId, beforeId, limit - 1);
    const gone = lastTrace ? deleteTracesUpTo.run(projectId, lastTrace.id) : deleteTracesBefore.run(projectId, beforeId);
    return { rows: rows.changes, traces: gone.changes };
  });

  // Filtered list statements are prepared on first use per filter combination, then reused.
  const listStatements = new Map<string, ReturnType<typeof db.query<RequestRow, Record<string, string | number>>>>();

  function list(projectId: string, f: RequestFilters): { rows: RequestRecord[]; hasMore: boolean } {
    const where = ["project_id = $project_id"];
    const params: Record<string, string | number> = { project_id: projectId, limit: f.limit + 1 };
    // The most selective filter picks the index: each is (project_id, <filter>, id), so a page is
    // one index range already in id order, however common or rare the value. Without statistics
    // SQLite would otherwise scan the primary key and test every row.
    let index: string | null = null;
    const filter = (column: string, name: string, value: string | number | undefined, idx: string) => {
      if (value === undefined) return;
      where.push(`${column} = $${name}`);
      params[name] = value;
      index ??= idx;
    };
    filter("trace_id", "trace", f.traceId, "requests_project_trace");
    filter("workflow_id", "workflow", f.workflowId, "requests_project_workflow");
    filter("selected_model", "model", f.model, "requests_project_model");
    filter("status", "status", f.status, "requests_project_status");
    if (f.after !== undefined) (where.push("id < $after"), (params.after = f.after));
    const from = index ? `requests INDEXED BY ${index}` : "requests";
    const sql = `SELECT * FROM ${from} WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $limit`;
    let stmt = listStatements.get(sql);
    if (!stmt) listStatements.set(sql, (stmt = db.query<RequestRow, Record<string, string | number>>(sql)));
    const rows = stmt.all(params);
    const hasMore = rows.length > f.limit;
    return { rows: rows.slice(0, f.limit).map((r) => fromRow(r, null)), hasMore };
  }

  // Dashboard pages (request-filters.ts): statements prepared per plan shape, then reused.
  const pageStatements = new Map<string, ReturnType<typeof db.query<RequestRow, SqlParams>>>();
  const boundaryStatements = new Map<string, ReturnType<typeof db.query<{ id: string }, SqlParams>>>();
  /** A page of the dashboard's filtered log. `nextCursor` continues it: after the page's last row,
   * or, when the scan window ran out first, after the last row examined (fewer rows than asked). */
  function page(projectId: string, f: LogFilters, window?: number): { rows: RequestRecord[]; hasMore: boolean; nextCursor: string | null } {
    const plan = planFilteredPage(projectId, f, window);
    let stmt = pageStatements.get(plan.pageSql);
    if (!stmt) pageStatements.set(plan.pageSql, (stmt = db.query<RequestRow, SqlParams>(plan.pageSql)));
    const found = stmt.all(plan.params);
    const rows = found.slice(0, f.limit).map((r) => fromRow(r, null));
    if (found.length > f.limit) return { rows, hasMore: true, nextCursor: rows[rows.length - 1]?.id ?? null };
    if (plan.boundarySql === null) return { rows, hasMore: false, nextCursor: null };
    let bound = boundaryStatements.get(plan.boundarySql);
    if (!bound) boundaryStatements.set(plan.boundarySql, (bound = db.query<{ id: string }, SqlParams>(plan.boundarySql)));
    const last = bound.get(plan.params)?.id ?? null;
    return { rows, hasMore: last !== null, nextCursor: last };
  }

  const workflowCostQuery = db.query<{ total: number | null }, [string, string]>(
    "SELECT SUM(cost) AS total FROM requests INDEXED BY requests_project_workflow WHERE project_id = ? AND workflow_id = ?",
  );

  return {
    /** USD model cost logged so far for a workflow (gw.workflow_budget). */
    workflowCost(projectId: string, workflowId: string): number {
      return workflowCostQuery.get(projectId, workflowId)?.total ?? 0;
    },
    /** A LogSink on the calling thread: writes an encoded batch (log-batch-codec.ts). */
    insertBatch(batch: string): void {
      const rejected = insertPrepared(decodeLogBatch(batch));
      if (rejected.length > 0) throw new Error(`request log rows rejected by constraints: ${rejected.join(", ")}`);
    },
    insertPrepared,
    /** Trace characters a project may store (0: no budget); traces past it are not written. */
    setTraceBudget(bytes: number): void {
      traceBudget = bytes;
    },
    /** Traces left out for a project's budget since this connection opened. */
    get tracesOverBudget(): number {
      return tracesOverBudget;
    },
    /** Retention (docs/observability.md "Metrics and log growth"): one small batch of a project's
     * rows and traces older than `beforeId` (lib/ids.ts requestIdAt); rollups are not touched. */
    prune(projectId: string, beforeId: string, limit: number): { rows: number; traces: number } {
      return prune.immediate(projectId, beforeId, limit);
    },
    list,
    page,
    get(projectId: string, id: string): RequestRecord | null {
      const row = byId.get(id, projectId);
      if (!row) return null;
      return fromRow(row, traces.get(projectId, id));
    },
  };
}

export type RequestsRepo = ReturnType<typeof requestsRepo>;
