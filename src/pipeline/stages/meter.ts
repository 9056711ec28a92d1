// Stage meter: model cost and the saving against the baseline (docs/decisions.md); settles the
// charge, cost plus markup (docs/billing.md); usage past the worst case is clamped and flagged
// (docs/security.md "Money"). Writes usage, cost, saved (the token engine's part also as optimization.saved).
import { costOf, outputAskOf, worstOutputTokens, type TokenCounts } from "../../routing/cost.ts";
import { BASELINE_MODEL_ID } from "../../routing/profiles.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import type { Deps } from "../deps.ts";
import type { RequestState } from "../state.ts";
import { newBillingState, settleCharge } from "../../billing/holds.ts";
import { settleShared } from "../../billing/shared-holds.ts";

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** An upstream's usage within what this request can legitimately produce: no more input than
 * the model's context window, no more output than n x the per-choice cap. Whatever an upstream
 * reports (1e15 tokens, NaN), the charge stays inside the bound routing and reserve priced. */
function boundedCounts(state: RequestState, model: CatalogModel, counts: TokenCounts): TokenCounts {
  const maxIn = model.context_window > 0 ? model.context_window : counts.promptTokens;
  const maxOut = worstOutputTokens(model, outputAskOf(state.request ?? {}));
  const promptTokens = Math.min(counts.promptTokens, maxIn);
  const completionTokens = Math.min(counts.completionTokens, maxOut);
  if (promptTokens < counts.promptTokens || completionTokens < counts.completionTokens) {
    const anomalies: string[] = [];
    if (promptTokens < counts.promptTokens) anomalies.push(`upstream reported ${counts.promptTokens} input tokens, past the ${maxIn}-token context window: billed as ${promptTokens}`);
    if (completionTokens < counts.completionTokens) anomalies.push(`upstream reported ${counts.completionTokens} output tokens, past this request's bound of ${maxOut}: billed as ${completionTokens}`);
    noteAnomaly(state, anomalies);
  }
  return {
    promptTokens, completionTokens,
    cachedTokens: Math.min(counts.cachedTokens, promptTokens),
    cacheWriteTokens: Math.min(counts.cacheWriteTokens ?? 0, promptTokens),
  };
}

function noteAnomaly(state: RequestState, lines: string[]): void {
  if (state.auth.test) return;
  const billing = (state.billing ??= newBillingState(state.auth.project.billingMode));
  (billing.anomaly ??= []).push(...lines);
}

/** A promise only in the multi-instance mode when the charge may be cut (settled in PostgreSQL before
 * the answer); otherwise that mode's charge rides the log row (billing/shared-holds.ts). */
export function meter(deps: Deps, state: RequestState): void | Promise<void> {
  const usage = state.usage ?? state.completion?.usage;
  if (!usage || !state.selected) return;
  state.usage = usage;
  // A stream that failed before producing anything is not billed (issue 15 item 7): record
  // releases its hold.
  if (state.error && count(usage.completion_tokens) === 0 && state.cache?.result !== "hit") return;
  const counts = boundedCounts(state, state.selected, {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    cachedTokens: count(usage.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens),
  });
  // An explicit model is its own baseline; a profile is measured against the reference model.
  const baseline = state.profile ? (deps.catalog.get(BASELINE_MODEL_ID) ?? state.selected) : state.selected;
  // A cached answer costs nothing and saves the whole baseline cost (docs/cache.md "Hits").
  const hit = state.cache?.result === "hit";
  state.cost = hit ? 0 : costOf(state.selected, counts);
  // max_cost is a promise: routing priced the worst case within it, so a cost past it can only
  // come from a misreporting upstream.
  const cap = state.options.max_cost;
  if (cap !== undefined && state.cost > cap) {
    noteAnomaly(state, [`cost $${state.cost} past max_cost $${cap}: billed at max_cost`]);
    state.cost = cap;
  }
  state.saved = Math.round((costOf(baseline, counts) - state.cost + optimizationSaving(state, hit)) * 1e10) / 1e10;
  // The workflow's reservation for this attempt becomes what it actually cost.
  const reservation = state.workflowBudget?.reservation;
  if (reservation) deps.workflowBudgets.settle(reservation, state.cost);
  // The project's hold becomes the charge; a stream that ended early is charged what it produced.
  return settleBilling(deps, state, state.selected.id, counts);
}

/** The token engine's part of `saved`: the tokens it removed at the selected model's input price,
 * also written to trace.optimization.saved (docs/optimization.md "Savings"). */
function optimizationSaving(state: RequestState, hit: boolean): number {
  const opt = state.optimization;
  const removed = opt ? opt.original_tokens - opt.final_tokens : 0;
  if (!opt || hit || removed <= 0 || !state.selected) return 0;
  opt.saved = Math.round(removed * state.selected.input_price * 1e4) / 1e10;
  return opt.saved;
}

/** The answer's charge (0 on a cache hit; test keys have none) replaces the hold. */
function settleBilling(deps: Deps, state: RequestState, model: string, counts: TokenCounts): void | Promise<void> {
  if (state.auth.test) return;
  const project = state.auth.project;
  const billing = (state.billing ??= newBillingState(project.billingMode));
  const charge = {
    requestId: state.requestId, model, cost: state.cost, saved: state.saved, byok: state.byok,
    hit: state.cache?.result === "hit", inputTokens: counts.promptTokens, outputTokens: counts.completionTokens,
  };
  if (deps.shared) {
    const requestId = state.requestId;
    return settleShared(deps.shared.money, project.id, billing, billing.hold ? state.auth.rules.terms : null, charge, deps.clock.now(),
      (err) => deps.logger.error({ err, request_id: requestId }, "could not settle the request's charge (its log row was not written); the leader releases its hold by age"));
  }
  settleCharge(deps.billing, project.id, billing, billing.hold ? state.auth.rules.terms : null, charge);
}
