// The request log behind one interface (docs/scale-out.md "Request log and metrics"): a batch of
// rows and traces in one transaction, a retried row skipped by request id, every read by project.
// SQLite: today's requests repo (here); PostgreSQL: src/store/postgres/request-log.ts.
import type { PreparedRow } from "./log-batch-codec.ts";
import type { RequestRecord } from "./request-record.ts";
import type { RollupTotals } from "./metrics-rollup.ts";
import type { MetricsRepo } from "./repos/metrics.ts";
import type { RequestsRepo } from "./repos/requests.ts";
import type { LogFilters } from "../schema/dashboard-requests.ts";

/** The dashboard's filters, which both stores serve: a page newest first, after a cursor (an id),
 * within [from, to] (ms, `to` inclusive), by model, status, trace, workflow, provider, cache, error
 * category, tag, task or test flag. */
export type LogQuery = LogFilters;

export interface LogPage {
  /** Newest first, without traces. */
  rows: RequestRecord[];
  hasMore: boolean;
}

export interface RequestLogStore {
  /** Writes the rows and their traces, all or none: a failure throws and nothing was written (the
   * log writer retries the batch). Rows already stored (same project and request id: a retry) are
   * skipped. Returns the ids of rows that break a constraint, so can never be written; the others
   * are written without them. */
  writeBatch(rows: PreparedRow[]): Promise<string[]>;
  list(projectId: string, q: LogQuery): Promise<LogPage>;
  /** One request with its trace (null when not kept), or null when the project has no such row. */
  get(projectId: string, id: string): Promise<RequestRecord | null>;
  /** Rollup totals of the project's requests created in [from, to), both minute-aligned (USD). */
  totals(projectId: string, from: number, to: number): Promise<RollupTotals>;
  /** USD model cost logged so far for a workflow (gw.workflow_budget). */
  workflowCost(projectId: string, workflowId: string): Promise<number>;
  /** Trace size a project may store (0: no budget): past it, rows are written without traces. */
  setTraceBudget(bytes: number): void;
  /** PostgreSQL writes traces after their rows: true once those queued are written, false when
   * `ms` pass first. Absent where a trace commits with its row. */
  flushTraces?(ms: number): Promise<boolean>;
}

/** The single-node store: the requests repo as the log worker uses it, its rollups and ledger
 * entries written in the rows' transaction as today. */
export function sqliteLogStore(repo: RequestsRepo, metrics: MetricsRepo): RequestLogStore {
  return {
    writeBatch: async (rows) => repo.insertPrepared(rows),
    async list(projectId, q) {
      const { rows, hasMore } = repo.page(projectId, q);
      return { rows, hasMore };
    },
    get: async (projectId, id) => repo.get(projectId, id),
    totals: async (projectId, from, to) => metrics.totals(projectId, from, to),
    setTraceBudget: (bytes) => repo.setTraceBudget(bytes),
    workflowCost: async (projectId, workflowId) => repo.workflowCost(projectId, workflowId),
  };
}
