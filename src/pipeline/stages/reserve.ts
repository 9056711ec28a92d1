// Stage reserve (gateway-api.md 1.6, 7; docs/billing.md): before the call, hold the worst-case
// charge of the first attempt against the project's credit and budgets, or refuse with 402
// (plan_limit, budget_exceeded, insufficient_credits). meter settles the hold to the actual
// charge (settleBilling); record gives back a hold left open (releaseBilling). Writes billing.
import { costOf, outputAskOf, worstCostOf, type TokenCounts } from "../../routing/cost.ts";
import { countMessageTokens } from "../../analysis/tokens.ts";
import type { Terms } from "../../billing/account.ts";
import { chargeNano, formatUsd, toNano, toUsd } from "../../billing/money.ts";
import { termsOf } from "../../billing/terms.ts";
import { GwError } from "../../errors/gw-error.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import type { Deps } from "../deps.ts";
import type { EmbedState } from "../embed/embed-state.ts";
import type { RequestState } from "../state.ts";

/** Whether the project's own provider key would serve this model (no markup then). */
const servedByok = (deps: Deps, state: RequestState, m: CatalogModel): boolean =>
  deps.projectProviders.resolve(state.auth.project.id, m.provider, state.auth.key.byok)?.byok ?? false;

/** The most a call to this model can be charged: its worst-case cost (n choices, each at
 * max_tokens or the model's maximum output), plus markup unless BYOK. Routing's downgrade
 * exclusion and the hold use this same figure. */
export function worstCharge(deps: Deps, state: RequestState, m: CatalogModel, inputTokens: number): number {
  return chargeNano(worstCostOf(m, inputTokens, outputAskOf(state.request ?? {})), servedByok(deps, state, m));
}

/** budget_action downgrade: the tightest budget's remainder, for routing to leave out the models
 * that could cost more (route-eligibility.ts). Undefined for any other action and in test mode. */
export function downgradeRoom(deps: Deps, state: RequestState): RequestState["budgetRoom"] {
  if (state.auth.test) return undefined;
  const terms = termsOf(state.auth.project);
  if (!terms || terms.action !== "downgrade") return undefined;
  return deps.billing.account(state.auth.project.id).budgetRoom(terms, Date.now()) ?? undefined;
}

/** Holds `amount` (nano-USD), trying `smaller` (a tighter token count) only when `amount` is
 * refused for money, as routing checks limits on the byte bound and then on the exact count. */
function hold(deps: Deps, state: RequestState, terms: Terms, amount: number, smaller?: () => number): void {
  const project = state.auth.project;
  let r = deps.billing.reserve(project.id, state.requestId, terms, amount);
  if (!r.ok && r.admission.code !== "plan_limit" && smaller) {
    const exact = smaller();
    if (exact < amount) (amount = exact), (r = deps.billing.reserve(project.id, state.requestId, terms, amount));
  }
  const billing = state.billing!;
  // A budget event when a budget stops a request, or is passed by one under warn.
  const event = r.ok ? terms.action === "warn" : r.admission.code === "budget_exceeded";
  for (const o of event ? r.admission.overruns : []) {
    deps.billing.budgetEvent(project.id, state.requestId, o, terms.action);
    if (r.ok) (billing.notes ??= []).push(`${o.period} budget ${formatUsd(o.budget)} exceeded (${formatUsd(o.spent)} spent, ${formatUsd(o.reserved)} reserved, up to ${formatUsd(amount)} for this request): served under budget_action warn; a budget event marks the period`);
  }
  if (!r.ok) throw new GwError(r.admission.code, r.admission.message);
  billing.hold = r.hold;
  billing.reserved = amount;
  if (state.budgetRoom) {
    const line = `budget_action downgrade: only models within the ${state.budgetRoom.period} budget's remaining ${formatUsd(state.budgetRoom.remaining)}`;
    (billing.notes ??= []).push(line);
    (state.reasons ??= []).push(line);
  }
}

/** Test keys are never charged (their 402s on demand come from route, gw-test:<code>), and a
 * project with nothing to check needs no hold: meter still records its charge. */
export const reserveApplies = (_deps: Deps, state: RequestState): boolean => !state.auth.test && termsOf(state.auth.project) !== null;

export function reserve(deps: Deps, state: RequestState): void {
  const terms = termsOf(state.auth.project);
  if (state.auth.test || !terms) return;
  state.billing = { mode: state.auth.project.billingMode, reserved: 0 };
  const model = state.ranked[0]!;
  const req = state.request!;
  hold(deps, state, terms, worstCharge(deps, state, model, state.inputTokens), () => worstCharge(deps, state, model, countMessageTokens(req.messages)));
}

/** /embeddings: the input's byte bound at the model's input price (no output tokens). */
export function reserveEmbeddings(deps: Deps, state: EmbedState): void {
  const terms = termsOf(state.auth.project);
  if (state.auth.test || !terms) return;
  state.billing = { mode: state.auth.project.billingMode, reserved: 0 };
  let bound = 0;
  for (const text of state.embed.input) bound += Buffer.byteLength(text);
  const m = state.ranked[0]!;
  hold(deps, state, terms, chargeNano(costOf(m, { promptTokens: bound, completionTokens: 0, cachedTokens: 0 }), servedByok(deps, state, m)));
}

/** meter: the answer's charge (0 on a cache hit; test keys have none) replaces the hold. */
export function settleBilling(deps: Deps, state: RequestState, counts?: TokenCounts): void {
  if (state.auth.test || !state.selected) return;
  const billing = (state.billing ??= { mode: state.auth.project.billingMode, reserved: 0 });
  if (billing.charge !== undefined) return;
  const hit = state.cache?.result === "hit";
  billing.charge = hit ? 0 : chargeNano(state.cost, state.byok);
  // The credit is never overdrawn: a charge past the hold and the unreserved credit (a fallback
  // to a dearer model, an input larger than its byte bound) is cut to what they cover, flagged.
  const terms = billing.hold ? termsOf(state.auth.project) : null;
  const cover = terms ? deps.billing.account(state.auth.project.id).coverable(terms, billing.hold) : null;
  if (cover !== null && billing.charge > cover) {
    (billing.anomaly ??= []).push(`charge ${formatUsd(billing.charge)} past what the hold and credit cover: billed ${formatUsd(cover)}`);
    billing.charge = cover;
  }
  deps.billing.settle(state.auth.project.id, billing.hold, {
    requestId: state.requestId, model: state.selected.id, charge: billing.charge, cost: toNano(state.cost),
    inputTokens: counts?.promptTokens ?? state.usage?.prompt_tokens ?? 0, outputTokens: counts?.completionTokens ?? state.usage?.completion_tokens ?? 0, byok: state.byok,
    cacheSaved: hit ? toNano(state.saved) : undefined,
  });
}

/** record: a request that ends without a charge (failed, refused, cancelled) holds nothing. */
export function releaseBilling(deps: Deps, state: RequestState): void {
  const held = state.billing?.hold;
  if (held?.open) deps.billing.release(held);
}

/** trace.billing: USD figures; absent in test mode. */
export function billingTrace(state: RequestState) {
  const b = state.billing;
  if (!b) return undefined;
  return {
    mode: b.mode, reserved: toUsd(b.reserved), charge: toUsd(b.charge ?? 0), ...(b.notes ? { notes: b.notes } : {}),
    ...(b.anomaly ? { anomaly: b.anomaly } : {}),
  };
}
