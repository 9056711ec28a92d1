// Request log entry and request detail on the wire (docs/api.md "Request log", "Request detail"). Only metadata:
// prompts and answers are never stored, so they cannot appear here.
import { expandSpans, type StoredSpan } from "./trace.ts";
import type { RequestRecord } from "../store/repos/requests.ts";

export function logEntry(r: RequestRecord) {
  return {
    request_id: r.id,
    trace_id: r.traceId,
    created_at: new Date(r.createdAt).toISOString(),
    requested_model: r.requestedModel,
    selected_model: r.selectedModel,
    provider: r.provider,
    task: r.task,
    task_subtype: r.taskSubtype,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cost: r.cost,
    saved: r.saved,
    cache: r.cache,
    status: r.status,
    error: r.errorCode ? { code: r.errorCode, message: r.errorMessage } : null,
    error_category: r.errorCategory,
    latency_ms: r.latencyMs,
    ttft_ms: r.ttftMs,
    fallbacks: r.fallbacks,
    workflow_id: r.workflowId,
    step: r.step,
    tags: r.tags,
    endpoint: r.endpoint,
    stream: r.stream,
    test: r.test,
  };
}

interface StoredTrace extends Record<string, unknown> {
  spans?: StoredSpan[];
  parent_span_id?: string | null;
  timings?: Record<string, number>;
  versions?: unknown;
}

/** Trace fields the record stage leaves out when they hold these values (record.ts). */
const TRACE_DEFAULTS = {
  profile: null, workload: null, required_quality: null, weights: null, reasons: [], expected: null,
  error: null, tools: null, session: null, workflow_budget: null, optimization: null, cache: null,
  usage_estimated: false, client_disconnected: false, byok: false,
};

/** The stored trace in the documented shape: full spans with ids, timings per step, defaults
 * restored, and `selected` from the row's own columns. */
function expandTrace(r: RequestRecord, stored: StoredTrace) {
  const { spans: compact = [], parent_span_id: parent = null, timings: extra = {}, versions: _v, ...rest } = stored;
  const { spans, timings, total } = expandSpans(r.id, compact, parent);
  const selected = r.selectedModel ? { model: r.selectedModel, provider: r.provider } : null;
  return { trace_id: r.traceId, spans, ...TRACE_DEFAULTS, selected, ...rest, timings: { ...timings, ...extra, total } };
}

export function requestDetail(r: RequestRecord) {
  const stored = r.trace as StoredTrace | null;
  // A trace the project's trace_sample_rate left out keeps only the fact and the versions.
  const unsampled = stored?.sampled === false;
  return {
    object: "request",
    ...logEntry(r),
    trace: !stored ? null : unsampled ? { trace_id: r.traceId, sampled: false } : expandTrace(r, stored),
    versions: stored?.versions ?? null,
    overhead_ms: r.overheadMs,
  };
}
