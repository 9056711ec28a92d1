// Stage reserve: holds the worst-case charge of the first attempt against credit and budgets, or
// refuses with 402 (docs/billing.md, docs/api.md "Errors"); the money is billing/holds.ts: meter
// settles the hold, record releases one left open. Reads ranked; writes billing.
import { countMessageTokens } from "../../analysis/tokens.ts";
import { downgradeNote, holdCharge, newBillingState, type HoldAsk } from "../../billing/holds.ts";
import { dayKey, monthKey } from "../../billing/periods.ts";
import { holdShared } from "../../billing/shared-holds.ts";
import { servedByok, worstCharge, worstEmbedCharge } from "../../billing/worst-charge.ts";
import { outputAskOf } from "../../routing/cost.ts";
import { OVER_PROJECT_BUDGET } from "../eligibility.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import type { Deps } from "../deps.ts";
import type { EmbedState } from "../embed/embed-state.ts";
import { firstRanked, need, type RequestState } from "../state.ts";

/** Whether the project's own provider key would serve this model (no markup then). */
const byokFor = (deps: Deps, state: RequestState, m: CatalogModel): boolean =>
  servedByok(deps.projectProviders, state.auth.project.id, state.auth.key.byok, m);

/** A promise only in the multi-instance mode: the hold is one PostgreSQL transaction there. */
function hold(deps: Deps, state: RequestState, amount: number, smaller: HoldAsk["smaller"]): void | Promise<void> {
  const terms = state.auth.rules.terms;
  if (!terms) return;
  const billing = (state.billing = newBillingState(state.auth.project.billingMode));
  const room = state.budgetRoom;
  // `narrowed` is read only with a downgrade room: the candidates are not scanned without one.
  const narrowed = room !== undefined && state.candidates.some((c) => c.excluded?.startsWith(OVER_PROJECT_BUDGET));
  const projectId = state.auth.project.id;
  if (deps.shared) {
    const now = deps.clock.now();
    const held = holdShared(deps.shared.money, billing, { amount, smaller, projectId, requestId: state.requestId, terms }, now);
    if (!room) return held;
    // As holdCharge: once held, budget.downgraded (stored once per period across instances) and the note.
    return held.then(() => {
      if (narrowed) deps.eventSources.billing.downgraded(projectId, state.requestId, room, room.period === "daily" ? dayKey(now) : monthKey(now));
      (state.reasons ??= []).push(downgradeNote(billing, room));
    });
  }
  const note = holdCharge(deps.billing, billing, { amount, smaller, projectId, requestId: state.requestId, terms, room, narrowed });
  if (note) (state.reasons ??= []).push(note);
}

/** Test keys are never charged (their 402s on demand come from route, gw-test:<code>), and a
 * project with nothing to check needs no hold: meter still records its charge. */
export const reserveApplies = (_deps: Deps, state: RequestState): boolean => !state.auth.test && state.auth.rules.terms !== null;

export function reserve(deps: Deps, state: RequestState): void | Promise<void> {
  if (state.auth.test) return;
  const model = firstRanked(state);
  const req = need(state, "request");
  const ask = outputAskOf(req);
  const byok = byokFor(deps, state, model);
  return hold(deps, state, worstCharge(model, state.inputTokens, ask, byok), () => worstCharge(model, countMessageTokens(req.messages), ask, byok));
}

/** /embeddings: the input's byte bound at the model's input price (no output tokens). */
export function reserveEmbeddings(deps: Deps, state: EmbedState): void | Promise<void> {
  if (state.auth.test) return;
  const model = firstRanked(state);
  let bound = 0;
  for (const text of state.embed.input) bound += Buffer.byteLength(text);
  return hold(deps, state, worstEmbedCharge(model, bound, byokFor(deps, state, model)), undefined);
}
