// Stage meter: model cost of the answer (before markup) and the saving against the baseline.
// Writes usage, cost, saved, and settles the project's charge (cost plus markup; docs/billing.md).
// See docs/decisions.md for the baseline behind `saved`.
import { costOf, type TokenCounts } from "../../routing/cost.ts";
import { BASELINE_MODEL_ID } from "../../routing/profiles.ts";
import type { Deps } from "../../deps.ts";
import type { RequestState } from "../state.ts";
import { settleBilling } from "./reserve.ts";

export function meter(deps: Deps, state: RequestState): void {
  const usage = state.usage ?? state.completion?.usage;
  if (!usage || !state.selected) return;
  state.usage = usage;
  const counts: TokenCounts = {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
  };
  // An explicit model is its own baseline; a profile is measured against the reference model.
  const baseline = state.profile ? (deps.catalog.get(BASELINE_MODEL_ID) ?? state.selected) : state.selected;
  // A cached answer costs nothing and saves the whole baseline cost (gateway-api.md 2.5, 4.13).
  const hit = state.cache?.result === "hit";
  state.cost = hit ? 0 : costOf(state.selected, counts);
  state.saved = Math.round((costOf(baseline, counts) - state.cost) * 1e10) / 1e10;
  // The workflow's reservation for this attempt becomes what it actually cost.
  const reservation = state.workflowBudget?.reservation;
  if (reservation) deps.workflowBudgets.settle(reservation, state.cost);
  // The project's hold becomes the charge; a stream that ended early is charged what it produced.
  settleBilling(deps, state);
}
