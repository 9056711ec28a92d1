// A recorded request as OTLP spans (docs/observability.md "Span model"): the root span as SERVER,
// llm spans as CLIENT with the GenAI attributes. Built from the log row and trace only, so no
// prompt or answer can reach a collector.
import { COMPONENT_VERSIONS } from "../../config/versions.ts";
import type { RequestRecord } from "../../store/repos/requests.ts";
import { expandSpans, type Span, type StoredSpan } from "../trace.ts";
import { Attributes, type KeyValue } from "./attributes.ts";
import { isW3cSpanId, isW3cTraceId, otlpParentSpanId, otlpTraceId } from "./ids.ts";

const KIND_INTERNAL = 1;
const KIND_SERVER = 2;
const KIND_CLIENT = 3;
const STATUS_ERROR = 2;

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  status?: { code: number; message: string };
  /** The caller's own W3C trace and span, linked (not joined: the trace id is the project's). */
  links?: Array<{ traceId: string; spanId: string }>;
}

/** Epoch nanoseconds as a decimal string: created_at (ms) plus an offset kept to the microsecond. */
const nanos = (createdAt: number, offsetMs: number): string =>
  (BigInt(createdAt) * 1_000_000n + BigInt(Math.round(offsetMs * 1e6))).toString();

const operationOf = (endpoint: string): string => (endpoint === "embeddings" ? "embeddings" : "chat");

/** "chat.completions" -> "/v1/chat/completions". */
const routeOf = (endpoint: string): string => `/v1/${endpoint.replace(/\./g, "/")}`;

function provider(a: Attributes, name: string | null): void {
  // gen_ai.system is the older name of gen_ai.provider.name; both are sent for older backends.
  a.str("gen_ai.provider.name", name).str("gen_ai.system", name);
}

function rootAttributes(r: RequestRecord): KeyValue[] {
  const a = new Attributes().str("gen_ai.operation.name", operationOf(r.endpoint));
  provider(a, r.provider);
  const cache = (r.trace?.cache ?? null) as { result?: unknown } | null;
  return a
    .str("gen_ai.request.model", r.requestedModel).str("gen_ai.response.model", r.selectedModel)
    .int("gen_ai.usage.input_tokens", r.inputTokens).int("gen_ai.usage.output_tokens", r.outputTokens)
    .str("http.request.method", "POST").str("http.route", routeOf(r.endpoint)).int("http.response.status_code", r.status)
    .str("error.type", r.errorCode)
    .str("gw.request_id", r.id).str("gw.trace_id", r.traceId).str("gw.project_id", r.projectId).str("gw.endpoint", r.endpoint)
    .double("gw.cost", r.cost).double("gw.saved", r.saved).str("gw.cache", r.cache ?? "none")
    .str("gw.cache.result", typeof cache?.result === "string" ? cache.result : null)
    .int("gw.fallbacks", r.fallbacks).str("gw.task", r.task).str("gw.task_subtype", r.taskSubtype)
    .str("gw.error_category", r.errorCategory).int("gw.latency_ms", r.latencyMs).int("gw.ttft_ms", r.ttftMs)
    .double("gw.overhead_ms", r.overheadMs).bool("gw.stream", r.stream).bool("gw.test", r.test)
    .str("gw.workflow_id", r.workflowId).str("gw.step", r.step).strings("gw.tags", r.tags)
    .list;
}

/** An llm span: one provider call. The last one answered (or failed last), so it carries the
 * request's usage and the model that responded. */
function llmAttributes(r: RequestRecord, span: Span, last: boolean): KeyValue[] {
  const { provider: p, model, ...rest } = span.attributes ?? {};
  const a = new Attributes().str("gen_ai.operation.name", operationOf(r.endpoint));
  provider(a, typeof p === "string" ? p : null);
  a.str("gen_ai.request.model", typeof model === "string" ? model : null).str("error.type", span.error_code);
  if (last) {
    a.str("gen_ai.response.model", r.selectedModel)
      .int("gen_ai.usage.input_tokens", r.inputTokens).int("gen_ai.usage.output_tokens", r.outputTokens);
  }
  for (const [k, v] of Object.entries(rest)) a.any(`gw.${k}`, v);
  return a.list;
}

function stepAttributes(span: Span): KeyValue[] {
  const a = new Attributes().str("error.type", span.error_code);
  for (const [k, v] of Object.entries(span.attributes ?? {})) a.any(`gw.${k}`, v);
  return a.list;
}

/** The OTLP spans of one request; none when its detailed trace was not kept (sampling). */
export function encodeRequest(r: RequestRecord): OtlpSpan[] {
  if (r.trace?.sampled === false) return [];
  const stored = r.trace?.spans as StoredSpan[] | undefined;
  if (!stored || stored.length === 0) return [];
  const parent = typeof r.trace?.parent_span_id === "string" ? r.trace.parent_span_id : null;
  const { spans } = expandSpans(r.id, stored, parent);
  const traceId = otlpTraceId(r.projectId, r.traceId);
  const lastLlm = spans.findLastIndex((s) => s.name === "llm");
  return spans.map((s, i): OtlpSpan => {
    const root = i === 0;
    const out: OtlpSpan = {
      traceId,
      spanId: s.span_id,
      name: s.name,
      kind: root ? KIND_SERVER : s.name === "llm" ? KIND_CLIENT : KIND_INTERNAL,
      startTimeUnixNano: nanos(r.createdAt, s.start_ms),
      endTimeUnixNano: nanos(r.createdAt, s.start_ms + s.duration_ms),
      attributes: root ? rootAttributes(r) : s.name === "llm" ? llmAttributes(r, s, i === lastLlm) : stepAttributes(s),
    };
    const parentId = root ? (parent === null ? null : otlpParentSpanId(parent)) : s.parent_span_id;
    if (parentId) out.parentSpanId = parentId;
    if (root && parent !== null && isW3cTraceId(r.traceId) && isW3cSpanId(parent)) out.links = [{ traceId: r.traceId, spanId: parent }];
    if (s.error_code) out.status = { code: STATUS_ERROR, message: s.error_code };
    return out;
  });
}

const RESOURCE = {
  attributes: new Attributes().str("service.name", "gw").str("service.version", COMPONENT_VERSIONS.gateway).list,
};
const SCOPE = { name: "gw", version: COMPONENT_VERSIONS.gateway };

/** An ExportTraceServiceRequest in the OTLP/JSON encoding. */
export function traceRequestBody(spans: OtlpSpan[]): string {
  return JSON.stringify({ resourceSpans: [{ resource: RESOURCE, scopeSpans: [{ scope: SCOPE, spans }] }] });
}
