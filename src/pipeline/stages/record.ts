// Stage record: the request-log row and trace, queued off the response path, and one log line.
// A logging failure never fails a request (docs/architecture.md "Errors").
import { COMPONENT_VERSIONS } from "../../config/versions.ts";
import type { RequestRecord } from "../../store/repos/requests.ts";
import { writeRequestLine } from "../../observability/request-line.ts";
import { round3 } from "../../observability/trace.ts";
import type { Deps } from "../deps.ts";
import { errorTrace } from "../error-trace.ts";
import type { DetectedTask, RequestState } from "../state.ts";
import { billingTrace, releaseHold, takeQueuedCharge } from "../../billing/holds.ts";
import { releaseShared, takeCarried } from "../../billing/shared-holds.ts";
import { TraceReasons } from "../../store/trace-reasons.ts";

/** What the analyser found, for the trace: flags and counts only, never the entities themselves
 * (they are the prompt's own numbers, names and strings). */
function detectedOf(state: RequestState, t: DetectedTask) {
  const a = state.analysis;
  if (!a) return { task: t.task, subtype: t.subtype, source: t.source, input_tokens_bound: state.inputTokens };
  const e = a.entities;
  return {
    task: t.task, subtype: t.subtype, source: t.source, input_tokens_bound: state.inputTokens,
    language: a.language, complexity: a.complexity, live_data: a.liveData, personal: a.personal,
    entities: e.numbers.length + e.dates.length + e.emails.length + e.urls.length + e.ids.length + e.quoted.length + e.names.length + e.negations.length,
  };
}

/** trace.cache: the classification and the decision, never the keys' inputs. */
function cacheTrace(c: NonNullable<RequestState["cache"]>) {
  return {
    result: c.result, kind: c.kind, similarity: c.similarity, miss_reason: c.missReason,
    semantic: c.semantic, stored: c.stored,
  };
}

/** Values that are null or false in most requests are left undefined, so JSON omits them; the
 * request-detail serializer restores them (TRACE_DEFAULTS), like `selected`, from the row. */
function traceOf(state: RequestState, latencyMs: number, zero: boolean) {
  const err = state.error ?? null;
  return {
    // Stored compactly; the request-detail serializer expands spans and rebuilds timings.
    spans: state.spans.withRoot(latencyMs, err?.code ?? null),
    parent_span_id: state.parentSpanId ?? undefined,
    detected: state.task ? detectedOf(state, state.task) : null,
    profile: state.profile ?? undefined,
    workload: state.workload,
    required_quality: state.requiredQuality,
    weights: state.weights,
    candidates: state.candidates,
    // Sentences only when read: the codec stores the notes, JSON.stringify of this object makes them.
    reasons: state.reasons ? new TraceReasons(state.reasons, state.candidates) : undefined,
    expected: state.expected,
    health: state.healthSkipped ? { skipped: state.healthSkipped } : undefined,
    session: zero ? undefined : state.session,
    workflow_budget: state.workflowBudget ? { budget: state.workflowBudget.budget, remaining: state.workflowBudget.remaining } : undefined,
    reason: state.reason,
    attempts: state.attempts,
    timings: state.spans.timings,
    error: err ? errorTrace(state, err, state.failedStep ?? null) : undefined,
    optimization: state.optimization,
    cache: state.cache ? cacheTrace(state.cache) : undefined,
    tools: state.request?.tools ? { count: state.request.tools.length, choice: typeof state.request.tool_choice === "object" ? "function" : (state.request.tool_choice ?? "auto") } : undefined,
    usage_estimated: state.usageEstimated || undefined,
    client_disconnected: state.clientDisconnected || undefined,
    byok: state.byok || undefined,
    billing: billingTrace(state.billing),
    guard: state.guard,
    versions: COMPONENT_VERSIONS,
  };
}

/** trace_sample_rate (1, 0.5, 0.1, 0.01): whether this request's detailed trace is kept. Decided
 * by the trace id, so a trace is kept or dropped whole; errors always keep theirs. Test keys also
 * keep at most GW_TEST_TRACES_PER_MIN detailed traces per project per minute (docs/observability.md
 * "Trace storage"): free test traffic cannot grow the database like paid traffic. */
function traceSampled(deps: Deps, state: RequestState): boolean {
  if (state.error) return true;
  const rate = state.auth.rules.traceSampleRate;
  if (rate < 1 && !traceIdSampled(state.traceId, rate)) return false;
  return !state.auth.test || deps.testTraceQuota.take(state.auth.project.id, deps.clock.now(), deps.config.testTracesPerMinute);
}


/** A trace id's draw: a hash in 0..9999 below rate x 10,000. */
export const traceIdSampled = (traceId: string, rate: number): boolean => Number(Bun.hash.wyhash(traceId) % 10_000n) < rate * 10_000;

/** Retention zero stores no caller free text either: tags, workflow, step and session ids are
 * left out of the log row and the trace (docs/retention.md). */
const isZeroRetention = (state: RequestState): boolean => state.auth.rules.retention === "zero";

/** Multi-instance: a promise of the row's commit (log-writer.ts group commit), which the answer awaits. */
export function record(deps: Deps, state: RequestState): void | Promise<void> {
  // The charge goes with the row, written in one transaction (docs/billing.md "The ledger";
  // multi-instance: one PostgreSQL call, docs/scale-out.md "Request log on the request path").
  let charge = deps.shared ? takeCarried(state.billing) : takeQueuedCharge(state.billing);
  try {
    // A request that ends unmetered (failed, cancelled) gives its workflow reservation back.
    const reservation = state.workflowBudget?.reservation;
    if (reservation) deps.workflowBudgets.release(reservation);
    if (deps.shared) releaseShared(deps.shared.money, state.billing, deps.clock.now(), (err) => deps.logger.error({ err, request_id: state.requestId }, "could not release the request's hold"));
    else releaseHold(deps.billing, state.billing);
    const latencyMs = performance.now() - state.t0;
    const err = state.error ?? null;
    const zero = isZeroRetention(state);
    const row: RequestRecord = {
      id: state.requestId,
      projectId: state.auth.project.id,
      keyId: state.auth.key.id,
      traceId: state.traceId,
      createdAt: state.createdAt,
      endpoint: state.endpoint,
      requestedModel: state.requestedModel,
      selectedModel: state.selected?.id ?? null,
      // A failed request names the provider it last tried (docs/api.md "Request log"), so the status
      // page and alert rules can tell whose outage it was.
      provider: state.provider ?? state.attempts.at(-1)?.provider ?? null,
      task: state.task?.task ?? null,
      taskSubtype: state.task?.subtype ?? null,
      inputTokens: state.usage?.prompt_tokens ?? 0,
      outputTokens: state.usage?.completion_tokens ?? 0,
      cost: state.cost,
      saved: state.saved,
      cache: state.cache?.result === "hit" ? state.cache.kind : null,
      status: state.status,
      errorCode: err?.code ?? null,
      errorMessage: err?.logMessage ?? null,
      errorCategory: err?.info.category ?? null,
      latencyMs: Math.round(latencyMs),
      ttftMs: state.ttftMs === null ? null : Math.round(state.ttftMs),
      overheadMs: round3(Math.max(0, latencyMs - state.upstreamMs)),
      fallbacks: state.fallbacks,
      workflowId: zero ? null : state.workflowId,
      step: zero ? null : state.step,
      tags: zero ? [] : state.tags,
      stream: state.stream,
      test: state.auth.test,
      trace: traceSampled(deps, state) ? traceOf(state, latencyMs, zero) : { sampled: false, versions: COMPONENT_VERSIONS },
    };
    const committed = deps.logWriter.enqueue(row, charge);
    charge = null;
    // Exporters (OpenTelemetry, Prometheus) see every recorded request; each must be cheap and
    // must not throw (they queue and batch on their own).
    for (const listener of deps.requestListeners) listener(row);
    writeRequestLine(deps.logger, {
      request_id: row.id, project_id: row.projectId, endpoint: row.endpoint, status: row.status,
      model: row.selectedModel, provider: row.provider, latency_ms: row.latencyMs, fallbacks: row.fallbacks,
      error_code: row.errorCode, error_message: row.errorMessage, test: row.test,
    });
    return committed;
  } catch (err) {
    deps.logger.error({ err, request_id: state.requestId }, "could not record the request");
    // No row to carry it: the charge is written on its own.
    charge?.notCarried();
  }
}
