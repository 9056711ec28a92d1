// Stage call: tries the ranked models in order until one answers (fallback). Writes selected,
// provider, attempts, fallbacks, upstreamMs, and completion or events. One `llm` span per attempt.
import { GwError } from "../../errors/gw-error.ts";
import type { ChatCompletion } from "../../canonical/completion.ts";
import type { ProviderCall } from "../../providers/types.ts";
import { setRequestDeadline } from "../../providers/deadlines.ts";
import { answerChars, attemptLimits, limitsFor, oversize, setAttemptLimits } from "../../providers/upstream-limits.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import { outputAskOf, worstCostOf } from "../../routing/cost.ts";
import type { Deps } from "../deps.ts";
import { providerFor } from "../attempt-helpers.ts";
import { attemptFailed, attemptOk, beginAttempt } from "../attempt-log.ts";
import { cancelledError, need, type RequestState } from "../state.ts";

/** The attempt's worst-case cost (n choices at max_tokens or the model's maximum output) is held
 * against the workflow budget until metered. */
function reserveWorkflowBudget(deps: Deps, state: RequestState, model: CatalogModel): void {
  const wf = state.workflowBudget;
  if (!wf || !state.workflowId) return;
  const amount = worstCostOf(model, state.inputTokens, outputAskOf(state.request ?? {}));
  wf.reservation = deps.workflowBudgets.reserve(state.auth.project.id, state.workflowId, amount);
}

function releaseWorkflowBudget(deps: Deps, state: RequestState): void {
  const r = state.workflowBudget?.reservation;
  if (r) deps.workflowBudgets.release(r);
}

/** An explicit model's fallbacks join the ranked list once it cannot answer (route.ts). */
function addFallbacks(state: RequestState): void {
  if (!state.moreCandidates) return;
  state.ranked.push(...state.moreCandidates());
  state.moreCandidates = undefined;
}

/** Retry policy by failure class (docs/routing.md): a transient failure (a 5xx or a broken
 * connection) is retried once on the same model; a rate limit, a time-out or a refused key moves
 * on at once; a caller fault never retries or falls back. A half-open probe is not retried, nor
 * a test-mode scenario (docs/api.md "Test mode" fixes its attempts). */
const shouldRetry = (failure: UpstreamFailure, probe: boolean): boolean => failure.failureClass === "transient" && !probe;
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 150;

/** At most this many attempts per request, whatever the length of the ranked list. */
const MAX_ATTEMPTS = 4;
/** Failures that say the provider, not the model, is in trouble: its other models are skipped. */
const PROVIDER_WIDE: ReadonlySet<string> = new Set(["rate_limit", "transient", "timeout", "credential"]);

/** A whole answer longer than the request allows (16 characters a token, upstream-limits.ts) is
 * refused like an oversize stream: never cached, never billed past its bound. */
function checkedSize(completion: ChatCompletion, controller: AbortController, provider: string): ChatCompletion {
  const max = attemptLimits(controller)?.textChars ?? Number.POSITIVE_INFINITY;
  if (answerChars(completion) > max) throw oversize(provider, `its text passed ${max} characters`);
  return completion;
}

export async function call(deps: Deps, state: RequestState): Promise<void> {
  const request = need(state, "request");
  let last: UpstreamFailure | null = null;
  // Made on the first failure only: most requests succeed at once and need neither.
  let failedProviders: Set<string> | null = null;
  let retried: Set<string> | null = null;
  // state.ranked may grow while this runs: fallbacks of an explicit model are worked out only
  // once its first attempt failed (route.ts).
  for (let index = 0; index < state.ranked.length; index++) {
    const model = state.ranked[index]!;
    if (state.attempts.length >= MAX_ATTEMPTS || state.cancelled) break;
    if (failedProviders?.has(model.provider)) continue;
    const resolved = providerFor(deps, state, model);
    if (!resolved) continue;
    const { provider, byok } = resolved;
    // An open circuit skips the model without an attempt; half-open lets a probe through.
    const admitted = state.auth.test ? { ok: true as const, probe: false } : deps.health.admit(model.provider, model.id, resolved.healthKey);
    if (!admitted.ok) {
      (state.healthSkipped ??= []).push({ model: model.id, reason: admitted.reason });
      addFallbacks(state);
      continue;
    }
    // A controller per attempt: a time-out ends this attempt only; a client that goes away ends
    // the request (state.cancelled) and the attempt under way (see cancel() in state.ts).
    // The request's deadline bounds every attempt, so fallbacks cannot add up past it.
    const deadlineAt = state.createdAt + deps.config.requestTimeoutMs;
    if (state.attempts.length > 0 && Date.now() >= deadlineAt) break;
    reserveWorkflowBudget(deps, state, model);
    const controller = new AbortController();
    setRequestDeadline(controller, deadlineAt);
    setAttemptLimits(controller, limitsFor(request, model, deps.config.upstreamMaxBodyBytes));
    state.attemptAbort = controller;
    const providerCall: ProviderCall = { model, request, controller, signal: controller.signal, attempt: state.attempts.length };
    const run = beginAttempt(state, model, resolved, admitted.probe, { provider: provider.id, model: model.id, attempt: providerCall.attempt, stream: state.stream });
    try {
      if (state.stream) state.events = await provider.stream(providerCall);
      else state.completion = checkedSize(await provider.complete(providerCall), controller, provider.id);
    } catch (err) {
      const failure = attemptFailed(deps, state, run, err);
      last = failure;
      releaseWorkflowBudget(deps, state);
      if (!failure.canFallback || state.cancelled) break;
      if (shouldRetry(failure, admitted.probe) && !state.scenario && !retried?.has(model.id) && Date.now() + RETRY_MAX_MS < deadlineAt) {
        // A transient failure gets one retry of the same model after a short jittered pause.
        (retried ??= new Set()).add(model.id);
        await Bun.sleep(RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS));
        index--;
        continue;
      }
      if (PROVIDER_WIDE.has(failure.failureClass)) (failedProviders ??= new Set()).add(model.provider);
      addFallbacks(state);
      continue;
    }
    // For streams the llm span and attempt are closed when the stream ends (see stream-out.ts).
    attemptOk(deps, state, run, state.stream);
    state.selected = model;
    state.provider = provider.id;
    if (state.session) deps.sessions.set(state.auth.project.id, state.session.id, model.id, model.provider);
    state.fallbacks = index;
    state.byok = byok;
    return;
  }
  if (state.cancelled) throw cancelledError(state);
  if (last) throw last.toGwError();
  if (state.healthSkipped) {
    // Each circuit's reason names its provider (or model) and the failure that opened it.
    const reasons = [...new Set(state.healthSkipped.map((s) => s.reason))].slice(0, 3).join("; ");
    throw new GwError("provider_unavailable", `Every provider that could serve this request is failing right now (${reasons}); retry shortly.`);
  }
  throw new GwError("no_model_available", "No enabled provider can serve this request.");
}
