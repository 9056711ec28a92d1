// Credits, budget and plan events (docs/webhooks.md "Event types") from billing's figures before
// and after each step: a crossing emits once per natural key; repeats stop at an in-memory set.
import type { Overrun, Period, Terms } from "../../billing/account.ts";
import { toUsd } from "../../billing/money.ts";
import type { BillingSignals, Figures, TopUp } from "../../billing/signals.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import type { WebhookEventType } from "../webhooks/event.ts";
import { crossed, fellBelow, Once } from "./thresholds.ts";

export const BUDGET_PERCENTS = [50, 80, 100] as const;
export const PLAN_WARNING_PERCENT = 80;
/** credits.low: the prepaid balance falls under this share of the last top-up. */
export const LOW_CREDIT_SHARE = 0.2;

/** What the credit covers: the balance (prepaid) or the balance plus the credit limit. */
const available = (terms: Terms, f: Figures): number => (terms.credit === "limit" ? f.balance + terms.creditLimit : f.balance);

export class BillingEvents implements BillingSignals {
  private readonly once = new Once();

  constructor(private readonly emit: EmitEvent) {}

  private send(projectId: string, type: WebhookEventType, key: string, data: Record<string, unknown>): void {
    if (this.once.first(`${projectId} ${type} ${key}`)) this.emit({ projectId, type, key, data });
  }

  charged(projectId: string, requestId: string, terms: Terms, before: Figures, after: Figures, topUp: TopUp | null): void {
    for (const period of ["daily", "monthly"] as const) {
      const budget = terms.budgets[period];
      if (budget === undefined) continue;
      const [key, was, now] = period === "daily" ? [after.dayKey, before.dayKey === after.dayKey ? before.daySpent : 0, after.daySpent]
        : [after.monthKey, before.monthKey === after.monthKey ? before.monthSpent : 0, after.monthSpent];
      for (const percent of crossed(was, now, budget, BUDGET_PERCENTS)) {
        this.send(projectId, "budget.threshold_reached", `${period}:${key}:${percent}`, {
          period, period_key: key, percent, budget: toUsd(budget), spent: toUsd(now), request_id: requestId,
        });
      }
    }
    const limit = terms.monthlyRequests;
    if (limit !== null) {
      const was = before.monthKey === after.monthKey ? before.monthRequests : 0;
      if (crossed(was, after.monthRequests, limit, [PLAN_WARNING_PERCENT]).length > 0) this.planEvent(projectId, "plan.limit_warning", after, limit);
      if (was < limit && after.monthRequests >= limit) this.planEvent(projectId, "plan.limit_reached", after, limit);
    }
    if (terms.credit === null) return;
    if (terms.credit === "prepaid" && topUp && fellBelow(before.balance, after.balance, topUp.amount * LOW_CREDIT_SHARE)) {
      this.send(projectId, "credits.low", `topup:${topUp.seq}`, {
        balance: toUsd(after.balance), threshold: toUsd(Math.round(topUp.amount * LOW_CREDIT_SHARE)), last_top_up: { entry_id: topUp.seq, amount: toUsd(topUp.amount) },
      });
    }
    if (available(terms, before) > 0 && available(terms, after) <= 0) this.depleted(projectId, requestId, terms, after, topUp, "balance_zero");
  }

  refused(projectId: string, requestId: string, terms: Terms, code: "plan_limit" | "budget_exceeded" | "insufficient_credits", now: Figures, topUp: TopUp | null): void {
    if (code === "plan_limit" && terms.monthlyRequests !== null) this.planEvent(projectId, "plan.limit_reached", now, terms.monthlyRequests);
    if (code === "insufficient_credits") this.depleted(projectId, requestId, terms, now, topUp, "request_refused");
  }

  overBudget(projectId: string, requestId: string, o: Overrun, action: Terms["action"]): void {
    this.send(projectId, "budget.exceeded", `${o.period}:${o.key}`, {
      period: o.period, period_key: o.key, budget: toUsd(o.budget), spent: toUsd(o.spent), reserved: toUsd(o.reserved), action, request_id: requestId,
    });
  }

  downgraded(projectId: string, requestId: string, room: { period: Period; remaining: number }, periodKey: string): void {
    this.send(projectId, "budget.downgraded", `${room.period}:${periodKey}`, {
      period: room.period, period_key: periodKey, remaining: toUsd(room.remaining), request_id: requestId,
    });
  }

  credited(projectId: string, top: TopUp, balance: number): void {
    this.send(projectId, "credits.added", String(top.seq), { entry_id: top.seq, amount: toUsd(top.amount), balance: toUsd(balance) });
  }

  private planEvent(projectId: string, type: "plan.limit_warning" | "plan.limit_reached", f: Figures, limit: number): void {
    const percent = type === "plan.limit_warning" ? PLAN_WARNING_PERCENT : 100;
    this.send(projectId, type, f.monthKey, { month: f.monthKey, percent, limit, used: f.monthRequests });
  }

  private depleted(projectId: string, requestId: string, terms: Terms, f: Figures, topUp: TopUp | null, reason: "balance_zero" | "request_refused"): void {
    // One per top-up: credit added since re-arms it.
    this.send(projectId, "credits.depleted", `topup:${topUp?.seq ?? 0}`, {
      reason, balance: toUsd(f.balance), credit_limit: terms.credit === "limit" ? toUsd(terms.creditLimit) : null, request_id: requestId,
    });
  }
}
