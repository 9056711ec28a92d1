// How request-log rows are queued and cross to the log worker: one string, two JSON lines per row
// (column values, then the trace or `null`), encoded when queued; the worker never parses a trace.
// Also the column order of the requests table's inserts.
import type { RequestRecord } from "./request-record.ts";
import { encodeTrace } from "./trace-codec.ts";

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
  r.workflowId, r.step, JSON.stringify(r.tags), r.stream ? 1 : 0, r.test ? 1 : 0,
];

/** A row ready to insert: values in COLUMNS order and the trace as JSON. Plain data, so it can
 * cross to the log worker cheaply; binding an array is also much cheaper than 29 named params. */
export interface PreparedRow {
  values: SqlValue[];
  id: string;
  projectId: string;
  trace: string | null;
}

export const prepareRow = (r: RequestRecord): PreparedRow => ({
  values: toValues(r),
  id: r.id,
  projectId: r.projectId,
  trace: r.trace ? JSON.stringify(encodeTrace(r.trace)) : null,
});

/** One row's two lines; a batch is its rows' lines concatenated. */
export const encodeLogRow = (r: RequestRecord): string =>
  `${JSON.stringify(toValues(r))}\n${r.trace ? JSON.stringify(encodeTrace(r.trace)) : "null"}\n`;

export const encodeLogBatch = (records: RequestRecord[]): string => records.map(encodeLogRow).join("");

export function decodeLogBatch(text: string): PreparedRow[] {
  const lines = text.split("\n");
  const rows: PreparedRow[] = [];
  // The text ends with a newline, so the last element is empty.
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const values = JSON.parse(lines[i]!) as SqlValue[];
    const trace = lines[i + 1]!;
    rows.push({ values, id: values[0] as string, projectId: values[1] as string, trace: trace === "null" ? null : trace });
  }
  return rows;
}
