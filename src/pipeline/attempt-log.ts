// One upstream attempt's bookkeeping for every pipeline (chat calls, streams, embeddings): its llm
// span, its entry in trace.attempts, the upstream time, and the provider health it feeds.
import type { UpstreamFailure } from "../canonical/failure.ts";
import { scrubCredentials } from "../canonical/scrub-credentials.ts";
import type { SpanAttributes } from "../observability/trace.ts";
import type { ResolvedProvider } from "../providers/project-providers.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
import type { HealthOutcome } from "../routing/health.ts";
import { asFailure } from "./attempt-helpers.ts";
import type { Deps } from "./deps.ts";
import type { Attempt, RequestState } from "./state.ts";

export interface AttemptRun {
  readonly model: CatalogModel;
  readonly resolved: ResolvedProvider;
  /** A half-open circuit's probe (routing/health.ts). */
  readonly probe: boolean;
  readonly attrs: SpanAttributes;
  readonly start: number;
}

export function beginAttempt(state: RequestState, model: CatalogModel, resolved: ResolvedProvider, probe: boolean, attrs: SpanAttributes): AttemptRun {
  return { model, resolved, probe, attrs, start: state.spans.now() };
}

/** Feeds provider health, except where the outcome says nothing about the provider: test keys and
 * a client that went away. A project's own key (BYOK) feeds only its own breakers (routing/health.ts),
 * never the shared circuit other projects are routed by. */
function feedHealth(deps: Deps, state: RequestState, run: AttemptRun, outcome: HealthOutcome): void {
  if (state.auth.test || state.cancelled) return;
  const { model, resolved } = run;
  deps.health.record(model.provider, model.id, outcome, run.probe, resolved.byok ? resolved.healthKey ?? `byok:${state.auth.project.id}` : null);
}

/** A failed attempt: its span closed with the error, its entry, its upstream time, its health
 * report. Anything an adapter threw becomes an upstream failure, which is returned. */
export function attemptFailed(deps: Deps, state: RequestState, run: AttemptRun, err: unknown): UpstreamFailure {
  const failure = asFailure(err, deps);
  const end = state.spans.now();
  const code = failure.code;
  state.spans.add("llm", run.start, end, code, run.attrs);
  state.upstreamMs += end - run.start;
  state.attempts.push({
    model: run.model.id, provider: run.resolved.provider.id, status: "error", error_code: code, failure_class: failure.failureClass,
    upstream_status: failure.upstreamStatus, duration_ms: Math.round(end - run.start), byok: run.resolved.byok || undefined,
  });
  // gw's own words for it (an open circuit's answer repeats them): scrubbed, as a transport error may carry a URL's key.
  feedHealth(deps, state, run, { ok: false, failureClass: failure.failureClass, cause: scrubCredentials(failure.message).replace(/\.$/, "") });
  return failure;
}

/** An attempt that answered. A whole answer closes its span now; a stream's stays open until the
 * stream ends (endStreamAttempt), which then sets the entry's duration. */
export function attemptOk(deps: Deps, state: RequestState, run: AttemptRun, streaming: boolean): void {
  const end = state.spans.now();
  feedHealth(deps, state, run, { ok: true, latencyMs: end - run.start });
  const entry: Attempt = {
    model: run.model.id, provider: run.resolved.provider.id, status: "ok", error_code: null, failure_class: null,
    upstream_status: 200, duration_ms: 0, byok: run.resolved.byok || undefined,
  };
  state.attempts.push(entry);
  if (streaming) {
    state.llmStart = run.start;
    return;
  }
  state.spans.add("llm", run.start, end, null, run.attrs);
  state.upstreamMs += end - run.start;
  entry.duration_ms = Math.round(end - run.start);
}

/** The stream ended (answered, failed or left): its attempt's llm span closes, and a failure marks
 * its entry. A cached answer made no provider call: no span, no entry. */
export function endStreamAttempt(state: RequestState, errorCode: string | null): void {
  if (state.cache?.result === "hit") return;
  const start = state.llmStart ?? state.spans.now();
  const end = state.spans.now();
  const attempt = state.attempts.at(-1);
  state.spans.add("llm", start, end, errorCode, { provider: state.provider, model: state.selected?.id ?? null, stream: true });
  state.upstreamMs += end - start;
  if (attempt) {
    attempt.duration_ms = Math.round(end - start);
    if (errorCode) (attempt.status = "error"), (attempt.error_code = errorCode);
  }
}
