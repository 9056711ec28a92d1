// How request-log rows are queued and cross to the log worker: one string, three lines per row
// (column values, the trace or `null`, the request's ledger entries or nothing), encoded when
// queued; the worker never parses a trace. Also the column order of the requests table's inserts.
import type { LedgerEntry } from "./repos/ledger.ts";
import type { RequestRecord } from "./request-record.ts";
import { encodeTraceText } from "./trace-codec.ts";

/** Column names in insert order; `toValues` yields the values in this order. */
export const COLUMNS = [
  "id", "project_id", "key_id", "trace_id", "created_at", "endpoint", "requested_model", "selected_model",
  "provider", "task", "task_subtype", "input_tokens", "output_tokens", "cost", "saved", "cache", "status",
  "error_code", "error_message", "error_category", "latency_ms", "ttft_ms", "overhead_ms", "fallbacks",
  "workflow_id", "step", "tags", "stream", "test",
] as const;

export type SqlValue = string | number | null;

const toValues = (r: RequestRecord): SqlValue[] => [
  r.id, r.projectId, r.keyId, r.traceId, r.createdAt, r.endpoint, r.requestedModel, r.selectedModel,
  r.provider, r.task, r.taskSubtype, r.inputTokens, r.outputTokens, r.cost, r.saved, r.cache, r.status,
  r.errorCode, r.errorMessage, r.errorCategory, r.latencyMs, r.ttftMs, r.overheadMs, r.fallbacks,
  r.workflowId, r.step, r.tags.length === 0 ? "[]" : JSON.stringify(r.tags), r.stream ? 1 : 0, r.test ? 1 : 0,
];

/** A row ready to insert: values in COLUMNS order and the trace as JSON. Plain data, so it can
 * cross to the log worker cheaply; binding an array is also much cheaper than 29 named params. */
export interface PreparedRow {
  values: SqlValue[];
  id: string;
  projectId: string;
  trace: string | null;
  /** The request's charge (and the hold it closes), written in the row's transaction. */
  ledger?: LedgerEntry[];
}

export const prepareRow = (r: RequestRecord): PreparedRow => ({
  values: toValues(r),
  id: r.id,
  projectId: r.projectId,
  trace: r.trace ? encodeTraceText(r.trace) : null,
});

/** One row's three lines; a batch is its rows' lines concatenated. */
export const encodeLogRow = (r: RequestRecord, ledger?: LedgerEntry[]): string =>
  `${JSON.stringify(toValues(r))}\n${r.trace ? encodeTraceText(r.trace) : "null"}\n${ledger ? JSON.stringify(ledger) : ""}\n`;

export const encodeLogBatch = (records: RequestRecord[]): string => records.map((r) => encodeLogRow(r)).join("");

export function decodeLogBatch(text: string): PreparedRow[] {
  const lines = text.split("\n");
  const rows: PreparedRow[] = [];
  // The text ends with a newline, so the last element is empty.
  for (let i = 0; i + 2 < lines.length; i += 3) {
    const values = JSON.parse(lines[i]!) as SqlValue[];
    const trace = lines[i + 1]!;
    const row: PreparedRow = { values, id: values[0] as string, projectId: values[1] as string, trace: trace === "null" ? null : trace };
    if (lines[i + 2]) row.ledger = JSON.parse(lines[i + 2]!) as LedgerEntry[];
    rows.push(row);
  }
  return rows;
}
