// The single-node money store (src/store/money-store.ts): today's Billing unchanged (in-memory
// accounts, so a check and hold is one synchronous step; ledger rows queued to SQLite), with the
// request ids it has seen so a replayed reserve, settle or release changes nothing.
import type { MoneyStore, Reserved, ReserveAsk, SettleAsk, Settled } from "../store/money-store.ts";
import type { Hold, Terms } from "./account.ts";
import type { Billing } from "./billing.ts";
import { toUsd } from "./money.ts";

/** Request ids whose hold was settled or released, kept for replays; the oldest go first. */
const CLOSED_KEPT = 100_000;

const termsOf = (allowance: number | null, a?: Pick<ReserveAsk, "budgets" | "plan">): Terms => {
  const budgets: Terms["budgets"] = {};
  for (const b of a?.budgets ?? []) budgets[b.period] = b.limit;
  return {
    credit: allowance === null ? null : allowance > 0 ? "limit" : "prepaid",
    creditLimit: allowance ?? 0, budgets, action: "block", monthlyRequests: a?.plan?.limit ?? null,
  };
};

export function sqliteMoneyStore(billing: Billing): MoneyStore {
  const open = new Map<string, Hold>();
  const closed = new Set<string>();
  const close = (id: string) => {
    closed.add(id);
    if (closed.size > CLOSED_KEPT) closed.delete(closed.values().next().value ?? id);
  };
  // Request ids are unique per project, as the ledger's are.
  const idOf = (projectId: string, requestId: string) => `${projectId}\u0000${requestId}`;

  const reserve = (ask: ReserveAsk): Reserved => {
    const { projectId, requestId, now } = ask;
    const id = idOf(projectId, requestId);
    if (open.has(id) || closed.has(id)) return { ok: true, replayed: true };
    const r = billing.reserve(projectId, requestId, termsOf(ask.allowance, ask), ask.amount, now);
    if (r.ok) return open.set(id, r.hold), { ok: true, replayed: false };
    const a = billing.account(projectId, now);
    const over = r.admission.overruns[0];
    if (r.admission.code === "budget_exceeded" && over) return { ok: false, code: "budget_exceeded", period: over.period, spent: over.spent, reserved: over.reserved };
    if (r.admission.code === "plan_limit") return { ok: false, code: "plan_limit" };
    return { ok: false, code: "insufficient_credits", balance: a.balance, reserved: a.reserved };
  };

  const settle = (s: SettleAsk): Settled => {
    const id = idOf(s.projectId, s.requestId);
    if (closed.has(id)) return { ok: false };
    const hold = open.get(id);
    open.delete(id);
    close(id);
    const cache = s.cacheSaved !== undefined;
    let charge = cache ? 0 : s.charge;
    // As holds.ts settleCharge: never past what the hold and the unreserved credit cover.
    const cover = s.allowance === null ? null : billing.account(s.projectId, s.now).coverable(termsOf(s.allowance), hold);
    if (cover !== null && charge > cover) charge = cover;
    billing.settle(s.projectId, hold, {
      requestId: s.requestId, model: s.model, charge, cost: s.cost, inputTokens: s.inputTokens, outputTokens: s.outputTokens,
      byok: s.byok, cacheSaved: s.cacheSaved,
    }, s.now);
    return { ok: true, charged: charge };
  };

  const release = (projectId: string, requestId: string, now: number): boolean => {
    const id = idOf(projectId, requestId);
    const hold = open.get(id);
    if (!hold) return false;
    open.delete(id);
    close(id);
    billing.release(hold, now);
    return true;
  };

  return {
    credit: async (projectId, amount, note, now) => billing.credit(projectId, toUsd(amount), note, now),
    reserve: async (a) => reserve(a),
    settle: async (s) => settle(s),
    release: async (projectId, requestId, now) => release(projectId, requestId, now),
    figures: async (projectId) => {
      const a = billing.account(projectId);
      return { balance: a.balance, reserved: a.reserved };
    },
  };
}
