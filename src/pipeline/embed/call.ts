// Embeddings stage call: the one routed model, with one retry after a transient failure and no
// fallback to another model (route.ts says why). One `llm` span and one attempt entry per try,
// provider health fed as for chat. Writes selected, provider, byok, attempts, usage, embed.result.
import { GwError } from "../../errors/gw-error.ts";
import { setRequestDeadline } from "../../providers/deadlines.ts";
import { embedLimits, setAttemptLimits } from "../../providers/upstream-limits.ts";
import type { EmbedCall } from "../../providers/types.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import type { Deps } from "../deps.ts";
import { providerFor } from "../attempt-helpers.ts";
import { attemptFailed, attemptOk, beginAttempt } from "../attempt-log.ts";
import { cancelledError, firstRanked } from "../state.ts";
import type { EmbedState } from "./embed-state.ts";

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 150;

/** A transient failure (5xx, broken connection) is retried once; a probe is not, nor a test
 * scenario other than `fallback`, whose first attempt fails so that the retry answers. */
function retries(state: EmbedState, failure: UpstreamFailure, probe: boolean): boolean {
  if (failure.failureClass !== "transient" || probe || state.cancelled) return false;
  return !state.scenario || state.scenario.kind === "fallback";
}

export async function callEmbeddings(deps: Deps, state: EmbedState): Promise<void> {
  const model = firstRanked(state);
  const resolved = providerFor(deps, state, model);
  const embed = resolved?.provider.embed?.bind(resolved.provider);
  if (!resolved || !embed) throw new GwError("no_model_available", `The provider of '${model.id}' cannot serve embeddings here.`);
  const { provider, byok } = resolved;
  const admitted = state.auth.test ? { ok: true as const, probe: false } : deps.health.admit(model.provider, model.id, resolved.healthKey);
  if (!admitted.ok) {
    (state.healthSkipped ??= []).push({ model: model.id, reason: admitted.reason });
    throw new GwError("provider_unavailable", `The provider of '${model.id}' is failing right now (${admitted.reason}); retry shortly.`);
  }
  const deadlineAt = state.createdAt + deps.config.requestTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    // A client that left, or a shutdown, starts no attempt (and no retry).
    if (state.cancelled) throw cancelledError(state);
    const controller = new AbortController();
    setRequestDeadline(controller, deadlineAt);
    setAttemptLimits(controller, embedLimits(state.embed.input.length, state.embed.dimensions));
    state.attemptAbort = controller;
    const call: EmbedCall = {
      model, input: state.embed.input, dimensions: state.embed.dimensions, controller, signal: controller.signal,
      attempt, requestedModel: state.requestedModel ?? undefined,
    };
    const run = beginAttempt(state, model, resolved, admitted.probe, { provider: provider.id, model: model.id, attempt, inputs: call.input.length });
    try {
      state.embed.result = await embed(call);
    } catch (err) {
      const failure = attemptFailed(deps, state, run, err);
      if (state.cancelled) throw cancelledError(state);
      if (attempt > 0 || !retries(state, failure, admitted.probe) || Date.now() + RETRY_MAX_MS >= deadlineAt) throw failure.toGwError();
      await Bun.sleep(RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS));
      continue;
    }
    attemptOk(deps, state, run, false);
    state.selected = model;
    state.provider = provider.id;
    state.byok = byok;
    const usage = state.embed.result.usage;
    state.usage = { prompt_tokens: usage.prompt_tokens, completion_tokens: 0, total_tokens: usage.total_tokens };
    return;
  }
}
