// A request's money (docs/billing.md): the worst-case charge held before the call (402 when it
// cannot be), settled to the actual charge after it, or released when the request ends without
// one; and trace.billing. Amounts in nano-USD.
import { GwError } from "../errors/gw-error.ts";
import type { BillingMode } from "../store/repos/projects.ts";
import type { Hold, Period, Terms } from "./account.ts";
import type { Billing } from "./billing.ts";
import { chargeNano, formatUsd, toNano, toUsd } from "./money.ts";
import type { PendingCharge } from "./pending-charges.ts";

/** The project's money for one request (trace.billing). */
export interface BillingState {
  mode: BillingMode;
  /** The worst-case charge held before the call (0 when nothing needed holding). */
  reserved: number;
  hold?: Hold;
  /** Set once by meter: cost plus markup (none on BYOK), 0 on a cache hit. */
  charge?: number;
  /** Budget notes: warn passed a budget, downgrade narrowed the models. */
  notes?: string[];
  /** Upstream anomalies meter clamped (usage past the request's worst case; a charge past what
   * the credit covers): the charge is the clamped figure. */
  anomaly?: string[];
  /** The charge's ledger entries, until the record stage hands them over with the log row. */
  queued?: PendingCharge;
}

/** budget_action downgrade: the tightest budget's remainder. */
export interface BudgetRoom {
  period: Period;
  remaining: number;
}

export const newBillingState = (mode: BillingMode): BillingState => ({ mode, reserved: 0 });

/** The room routing narrows models to under budget_action downgrade; undefined for other actions. */
export function downgradeRoom(billing: Billing, projectId: string, terms: Terms | null, now: number): BudgetRoom | undefined {
  if (!terms || terms.action !== "downgrade") return undefined;
  return billing.account(projectId).budgetRoom(terms, now) ?? undefined;
}

/** budget_action downgrade left no model within the budget, so routing refuses the request: a
 * budget.exceeded signal, as a refused hold sends (the hold is never asked for). */
export function downgradeRefused(billing: Billing, projectId: string, requestId: string, terms: Terms | null, room: BudgetRoom | undefined): void {
  const budget = room ? terms?.budgets[room.period] : undefined;
  if (!billing.signals || !terms || !room || budget === undefined) return;
  const account = billing.account(projectId);
  const { key, spent } = account.spentIn(room.period);
  billing.signals.overBudget(projectId, requestId, { period: room.period, key, budget, spent, reserved: account.reserved }, terms.action);
}

export interface HoldAsk {
  projectId: string;
  requestId: string;
  terms: Terms;
  amount: number;
  /** A tighter figure (the exact token count), tried only when `amount` is refused for money. */
  smaller?: () => number;
  /** The downgrade room routing used, noted when the hold is taken. */
  room?: BudgetRoom;
  /** Routing left a model out for that room (budget.downgraded). */
  narrowed?: boolean;
}

/** Holds the charge into `state`, or throws the 402 (plan_limit, budget_exceeded,
 * insufficient_credits). Returns the downgrade note for the routing reasons, if any. */
export function holdCharge(billing: Billing, state: BillingState, ask: HoldAsk): string | null {
  const { projectId, requestId, terms } = ask;
  let amount = ask.amount;
  let r = billing.reserve(projectId, requestId, terms, amount);
  if (!r.ok && r.admission.code !== "plan_limit" && ask.smaller) {
    const exact = ask.smaller();
    if (exact < amount) (amount = exact), (r = billing.reserve(projectId, requestId, terms, amount));
  }
  // A budget event when a budget stops a request, or is passed by one under warn.
  const event = r.ok ? terms.action === "warn" : r.admission.code === "budget_exceeded";
  if (event) for (const o of r.admission.overruns) {
    billing.budgetEvent(projectId, requestId, o, terms.action);
    billing.signals?.overBudget(projectId, requestId, o, terms.action);
    if (r.ok) (state.notes ??= []).push(`${o.period} budget ${formatUsd(o.budget)} exceeded (${formatUsd(o.spent)} spent, ${formatUsd(o.reserved)} reserved, up to ${formatUsd(amount)} for this request): served under budget_action warn; a budget event marks the period`);
  }
  if (!r.ok && r.admission.code !== "budget_exceeded" && billing.signals) {
    const account = billing.account(projectId);
    billing.signals.refused(projectId, requestId, terms, r.admission.code, account.figures(), account.topUp);
  }
  if (!r.ok) throw new GwError(r.admission.code, r.admission.message);
  state.hold = r.hold;
  state.reserved = amount;
  if (!ask.room) return null;
  if (ask.narrowed) billing.signals?.downgraded(projectId, requestId, ask.room, billing.account(projectId).spentIn(ask.room.period).key);
  return downgradeNote(state, ask.room);
}

/** The billing trace's note on a downgrade room (both modes), returned for the routing reasons. */
export function downgradeNote(state: BillingState, room: BudgetRoom): string {
  const line = `budget_action downgrade: only models within the ${room.period} budget's remaining ${formatUsd(room.remaining)}`;
  (state.notes ??= []).push(line);
  return line;
}

export interface Charge {
  requestId: string;
  model: string;
  /** The model cost in USD (before markup), and the saving a cache hit reports. */
  cost: number;
  saved: number;
  byok: boolean;
  hit: boolean;
  inputTokens: number;
  outputTokens: number;
}

/** The answer's charge (0 on a cache hit) replaces the hold, once. `terms` are needed only when a
 * hold exists: the credit is never overdrawn, a charge past the hold and the unreserved credit
 * (a fallback to a dearer model, an input larger than its byte bound) is cut to what they cover. */
export function settleCharge(billing: Billing, projectId: string, state: BillingState, terms: Terms | null, c: Charge): void {
  if (state.charge !== undefined) return;
  state.charge = c.hit ? 0 : chargeNano(c.cost, c.byok);
  // With terms there is a hold, so the account is loaded: one look-up serves cover and signals.
  const account = terms ? billing.account(projectId) : null;
  const cover = account && terms ? account.coverable(terms, state.hold) : null;
  if (cover !== null && state.charge > cover) {
    (state.anomaly ??= []).push(`charge ${formatUsd(state.charge)} past what the hold and credit cover: billed ${formatUsd(cover)}`);
    state.charge = cover;
  }
  // Thresholds are crossings between these two figures: O(1), and only a crossing emits.
  const watched = billing.signals ? account : null;
  const before = watched?.figures();
  const queued = billing.settle(projectId, state.hold, {
    requestId: c.requestId, model: c.model, charge: state.charge, cost: toNano(c.cost),
    inputTokens: c.inputTokens, outputTokens: c.outputTokens, byok: c.byok, cacheSaved: c.hit ? toNano(c.saved) : undefined, withRow: true,
  });
  if (queued) state.queued = queued;
  if (watched && before && terms) billing.signals?.charged(projectId, c.requestId, terms, before, watched.figures(), watched.topUp);
}

/** The charge for the log row to carry (once), or null. */
export function takeQueuedCharge(state: BillingState | undefined): PendingCharge | null {
  const queued = state?.queued ?? null;
  if (state) state.queued = undefined;
  return queued;
}

/** A request that ends without a charge (failed, refused, cancelled) holds nothing. */
export function releaseHold(billing: Billing, state: BillingState | undefined): void {
  const held = state?.hold;
  if (held?.open) billing.release(held);
}

/** trace.billing: USD figures; absent in test mode. */
export function billingTrace(b: BillingState | undefined) {
  if (!b) return undefined;
  const out: { mode: BillingMode; reserved: number; charge: number; notes?: string[]; anomaly?: string[] } = { mode: b.mode, reserved: toUsd(b.reserved), charge: toUsd(b.charge ?? 0) };
  // Added only when present, in this order (no spreads of throwaway objects).
  if (b.notes) out.notes = b.notes;
  if (b.anomaly) out.anomaly = b.anomaly;
  return out;
}
