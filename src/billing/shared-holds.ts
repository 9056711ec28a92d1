// A request's money in the multi-instance mode (docs/scale-out.md "PostgreSQL"): the same hold,
// charge and release as holds.ts, through the shared MoneyStore, so every instance draws on one
// balance, one set of budgets and one plan allowance. A charge whose amount is certain rides its log row.
import { GwError } from "../errors/gw-error.ts";
import type { QueuedCharge } from "../store/log-writer.ts";
import type { MoneyStore, PeriodKey, ReserveAsk, SettleAsk } from "../store/money-store.ts";
import type { CarriedSettle } from "../store/postgres/request-log.ts";
import { budgetMessage, creditMessage, planLimitMessage, type Terms } from "./account.ts";
import type { BillingState, Charge, HoldAsk } from "./holds.ts";
import { chargeNano, formatUsd, toNano } from "./money.ts";
import { dayKey, monthKey } from "./periods.ts";

/** What may be reserved past the balance: 0 prepaid, the credit limit postpaid, null unchecked. */
const allowanceOf = (terms: Terms): number | null =>
  terms.credit === "prepaid" ? 0 : terms.credit === "limit" ? terms.creditLimit : null;

/** The periods of `now` every charge counts in, so a budget set later sees the day's spending. */
const periodsOf = (now: number): PeriodKey[] => [{ period: "daily", key: dayKey(now) }, { period: "monthly", key: monthKey(now) }];

/** The ask for `amount`: budgets stop a request under `block` and `downgrade` (routing does not
 * narrow models in this mode), never under `warn`; the plan's allowance always. */
export function reserveAskOf(projectId: string, requestId: string, terms: Terms, amount: number, now: number): ReserveAsk {
  const ask: ReserveAsk = { projectId, requestId, amount, allowance: allowanceOf(terms), now };
  if (terms.action !== "warn") {
    const budgets: NonNullable<ReserveAsk["budgets"]> = [];
    if (terms.budgets.daily !== undefined) budgets.push({ period: "daily", key: dayKey(now), limit: terms.budgets.daily });
    if (terms.budgets.monthly !== undefined) budgets.push({ period: "monthly", key: monthKey(now), limit: terms.budgets.monthly });
    if (budgets.length > 0) ask.budgets = budgets;
  }
  if (terms.monthlyRequests !== null) ask.plan = { key: monthKey(now), limit: terms.monthlyRequests };
  return ask;
}

/** Holds the charge into `state`, or rejects with the 402 single-node gives (same code, same text). */
export async function holdShared(money: MoneyStore, state: BillingState, ask: HoldAsk, now: number): Promise<void> {
  const { projectId, requestId, terms } = ask;
  let amount = ask.amount;
  let r = await money.reserve(reserveAskOf(projectId, requestId, terms, amount, now));
  if (!r.ok && r.code !== "plan_limit" && ask.smaller) {
    const exact = ask.smaller();
    // A refused reservation wrote nothing, so the same request id may ask again.
    if (exact < amount) (amount = exact), (r = await money.reserve(reserveAskOf(projectId, requestId, terms, amount, now)));
  }
  if (!r.ok) {
    if (r.code === "plan_limit") throw new GwError("plan_limit", planLimitMessage(terms.monthlyRequests ?? 0, monthKey(now)));
    if (r.code === "budget_exceeded") {
      throw new GwError("budget_exceeded", budgetMessage(r.period, terms.budgets[r.period] ?? 0, r.spent, r.reserved, amount));
    }
    throw new GwError("insufficient_credits", creditMessage(terms, r.balance, r.reserved, amount));
  }
  state.hold = { projectId, requestId, amount, open: true, slot: terms.monthlyRequests !== null };
  state.reserved = amount;
}

/** Charges handed to the record stage, as single-node's BillingState.queued. */
const carried = new WeakMap<BillingState, QueuedCharge>();

/** The charge meter left for the log row to carry (record stage), once. */
export function takeCarried(state: BillingState | undefined): QueuedCharge | null {
  const charge = state ? carried.get(state) : undefined;
  if (!charge || !state) return null;
  carried.delete(state);
  return charge;
}

/** The answer's charge (0 on a cache hit) replaces the hold. With a hold, the charge is cut to what
 * the hold and the unreserved credit cover, as single-node does. When no cut is possible (nothing
 * charged, nothing checked, or within the hold: the credit always covers the hold), the charge rides
 * the request's log row, committed in the row's call before the answer (docs/scale-out.md "Request
 * log on the request path"); otherwise it is settled here, awaited. `onError`: a carried charge whose
 * row was dropped is settled on its own, and a failure of that is told here. */
export function settleShared(money: MoneyStore, projectId: string, state: BillingState, terms: Terms | null, c: Charge, now: number,
  onError: (err: unknown) => void): void | Promise<void> {
  if (state.charge !== undefined) return;
  const charge = c.hit ? 0 : chargeNano(c.cost, c.byok);
  const hold = state.hold;
  const ask: SettleAsk = {
    projectId, requestId: c.requestId, charge, allowance: hold && terms ? allowanceOf(terms) : null,
    model: c.model, inputTokens: c.inputTokens, outputTokens: c.outputTokens, cost: toNano(c.cost), byok: c.byok,
    cacheSaved: c.hit ? toNano(c.saved) : undefined, periods: periodsOf(now), now,
  };
  if (charge === 0 || ask.allowance === null || (hold !== undefined && charge <= hold.amount)) {
    if (hold) hold.open = false;
    state.charge = charge;
    carried.set(state, carriedCharge(money, ask, hold !== undefined, onError));
    return;
  }
  return settleNow(money, state, ask);
}

/** The settle as a ledger entry of the log row: the row's call settles it (request-log.ts). */
function carriedCharge(money: MoneyStore, ask: SettleAsk, held: boolean, onError: (err: unknown) => void): QueuedCharge {
  const entry: CarriedSettle = {
    projectId: ask.projectId, kind: ask.cacheSaved === undefined ? "charge" : "cache", amount: ask.charge, requestId: ask.requestId,
    model: ask.model, inputTokens: ask.inputTokens, outputTokens: ask.outputTokens, cost: ask.cost, saved: ask.cacheSaved ?? 0,
    byok: ask.byok, createdAt: ask.now, allowance: ask.allowance, periods: ask.periods ?? [], held,
  };
  return {
    entries: [entry],
    committed: () => {},
    notCarried: () => void money.settle(ask).catch(onError),
  };
}

async function settleNow(money: MoneyStore, state: BillingState, ask: SettleAsk): Promise<void> {
  const hold = state.hold;
  const charge = ask.charge;
  const settled = await money.settle(ask);
  if (hold) hold.open = false;
  // Settled before (its hold released as stale by the leader): this request is not charged again.
  const charged = settled.ok ? settled.charged : 0;
  state.charge = charged;
  if (charged < charge) {
    const why = settled.ok ? "past what the hold and credit cover" : "settled before (its hold closed by age)";
    (state.anomaly ??= []).push(`charge ${formatUsd(charge)} ${why}: billed ${formatUsd(charged)}`);
  }
}

/** A request that ends without a charge gives its hold back; not awaited (the answer does not
 * depend on it): a failure is reported, and the leader releases the hold by age. */
export function releaseShared(money: MoneyStore, state: BillingState | undefined, now: number, onError: (err: unknown) => void): void {
  const held = state?.hold;
  if (!held?.open) return;
  held.open = false;
  money.release(held.projectId, held.requestId, now).catch(onError);
}
