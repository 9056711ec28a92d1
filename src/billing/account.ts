// One project's money in memory (docs/billing.md "Never overspent under concurrency"): balance,
// open holds, the day's and month's spending, the month's answered requests. One process per data
// directory, so a check and hold made here in one synchronous call is atomic.
import { DAY_MS, dayKey, dayStart, monthKey, monthStart, nextMonthStart } from "./periods.ts";
import { formatUsd } from "./money.ts";
import type { AccountTotals } from "../store/repos/ledger.ts";

export type BudgetAction = "block" | "downgrade" | "warn";
export type Period = "daily" | "monthly";

/** A project's billing terms as the request path reads them (terms.ts), amounts in nano-USD. */
export interface Terms {
  /** `prepaid`: the balance; `limit`: postpaid with a credit limit; null: nothing to cover. */
  credit: "prepaid" | "limit" | null;
  creditLimit: number;
  budgets: Partial<Record<Period, number>>;
  action: BudgetAction;
  /** The plan's monthly allowance (Free), or null. */
  monthlyRequests: number | null;
}

export interface Hold {
  projectId: string;
  requestId: string;
  amount: number;
  open: boolean;
  /** Holds a place in the plan's monthly allowance until charged or released. */
  slot: boolean;
}

/** A budget this request's reservation would take past its limit. */
export interface Overrun {
  period: Period;
  key: string;
  budget: number;
  spent: number;
  reserved: number;
}

export type Admission =
  | { ok: true; overruns: Overrun[] }
  | { ok: false; code: "plan_limit" | "budget_exceeded" | "insufficient_credits"; message: string; overruns: Overrun[] };

/** The last credit row a balance includes (the top-up the low-credit threshold is measured against). */
export interface TopUp {
  seq: number;
  amount: number;
}

/** An account's figures at one instant, in nano-USD (requests: answered this month). */
export interface Figures {
  balance: number;
  dayKey: string;
  daySpent: number;
  monthKey: string;
  monthSpent: number;
  monthRequests: number;
}

// The 402 messages, one text whichever store refused (the shared one too: billing/shared-holds.ts).
export const planLimitMessage = (limit: number, month: string): string =>
  `The Free plan's ${limit.toLocaleString("en-US")} requests for ${month} (UTC) are used up; upgrade the plan or wait for the next month.`;

export const budgetMessage = (period: Period, budget: number, spent: number, reserved: number, amount: number): string =>
  `The project's ${period} budget (${formatUsd(budget)}) cannot cover this request: ${formatUsd(spent)} spent and ${formatUsd(reserved)} reserved by requests in flight, and this one could cost up to ${formatUsd(amount)}.`;

export function creditMessage(terms: Terms, balance: number, reserved: number, amount: number): string {
  const what = terms.credit === "prepaid" ? `The prepaid balance (${formatUsd(balance)})` : `The credit limit (${formatUsd(terms.creditLimit)}, balance ${formatUsd(balance)})`;
  return `${what} cannot cover this request's reservation of ${formatUsd(amount)} (${formatUsd(reserved)} reserved by requests in flight). Add credits.`;
}

export class Account {
  balance: number;
  reserved = 0;
  creditSeq: number;
  day: { key: string; spent: number };
  month: { key: string; spent: number; requests: number };
  /** Holds that become one more answered request when charged (the plan allowance counts them). */
  inflight = 0;
  /** Budget events already recorded, "<period>:<key>:<action>". */
  readonly fired = new Set<string>();
  /** The last credit the balance includes (credits.low is measured against it), once known. */
  topUp: TopUp | null = null;

  constructor(t: AccountTotals, now: number) {
    this.balance = t.balance;
    this.creditSeq = t.creditSeq;
    this.day = { key: dayKey(now), spent: t.daySpent };
    this.month = { key: monthKey(now), spent: t.monthSpent, requests: t.monthRequests };
  }

  /** [start, end) of the UTC day and month the keys were last taken in: inside them nothing can
   * roll, and the date text (toISOString, ~3 µs on the request path) is not made. */
  private dayRange = { start: 0, end: -1 };
  private monthRange = { start: 0, end: -1 };

  /** A new UTC day or month starts from nothing spent. */
  roll(now: number): void {
    if (now >= this.dayRange.start && now < this.dayRange.end && now >= this.monthRange.start && now < this.monthRange.end) return;
    const day = dayStart(now);
    this.dayRange = { start: day, end: day + DAY_MS };
    this.monthRange = { start: monthStart(now), end: nextMonthStart(now) };
    const d = dayKey(now);
    if (d !== this.day.key) this.day = { key: d, spent: 0 };
    const m = monthKey(now);
    if (m !== this.month.key) this.month = { key: m, spent: 0, requests: 0 };
  }

  /** A copy of the figures webhooks compare before and after a step (billing/signals.ts). */
  figures(): Figures {
    return { balance: this.balance, dayKey: this.day.key, daySpent: this.day.spent, monthKey: this.month.key, monthSpent: this.month.spent, monthRequests: this.month.requests };
  }

  spentIn(period: Period): { key: string; spent: number } {
    return period === "daily" ? this.day : this.month;
  }

  /** The tightest budget left for new reservations (downgrade routing), or null without budgets. */
  budgetRoom(terms: Terms, now: number): { period: Period; remaining: number } | null {
    this.roll(now);
    let room: { period: Period; remaining: number } | null = null;
    for (const period of ["daily", "monthly"] as const) {
      const budget = terms.budgets[period];
      if (budget === undefined) continue;
      const remaining = Math.max(0, budget - this.spentIn(period).spent - this.reserved);
      if (!room || remaining < room.remaining) room = { period, remaining };
    }
    return room;
  }

  /** Whether a reservation of `amount` may be held now: the plan's allowance, then the budgets,
   * then the credit. Checks only; hold() takes it, in the same synchronous call. */
  admit(terms: Terms, amount: number, now: number): Admission {
    this.roll(now);
    const limit = terms.monthlyRequests;
    const overruns = this.overruns(terms, amount);
    if (limit !== null && this.month.requests + this.inflight >= limit) {
      return { ok: false, code: "plan_limit", overruns, message: planLimitMessage(limit, this.month.key) };
    }
    const over = overruns[0];
    if (over && terms.action !== "warn") {
      return { ok: false, code: "budget_exceeded", overruns, message: budgetMessage(over.period, over.budget, over.spent, over.reserved, amount) };
    }
    const room = this.creditRoom(terms);
    if (room !== null && amount > room) {
      return { ok: false, code: "insufficient_credits", overruns, message: creditMessage(terms, this.balance, this.reserved, amount) };
    }
    return { ok: true, overruns };
  }

  hold(projectId: string, requestId: string, amount: number, slot: boolean): Hold {
    this.reserved += amount;
    if (slot) this.inflight++;
    return { projectId, requestId, amount, open: true, slot };
  }

  /** The answer's charge replaces its hold; `counted` when a model answered (not the cache). */
  settle(hold: Hold | undefined, charge: number, counted: boolean, now: number): void {
    if (hold?.open) this.unhold(hold);
    this.roll(now);
    this.balance -= charge;
    this.day.spent += charge;
    this.month.spent += charge;
    if (counted) this.month.requests++;
  }

  /** The largest charge this request may take from the credit at settle time: what its hold plus
   * the unreserved credit cover (null when nothing limits it). A charge past it would overdraw a
   * prepaid balance or a credit limit (issue 15 item 3). */
  coverable(terms: Terms, hold: Hold | undefined): number | null {
    const room = this.creditRoom(terms);
    if (room === null) return null;
    return Math.max(0, room + (hold?.open ? hold.amount : 0));
  }

  release(hold: Hold): void {
    if (hold.open) this.unhold(hold);
  }

  private unhold(hold: Hold): void {
    hold.open = false;
    this.reserved = Math.max(0, this.reserved - hold.amount);
    if (hold.slot) this.inflight = Math.max(0, this.inflight - 1);
  }

  /** What may still be reserved against the credit, or null when nothing limits it. */
  private creditRoom(terms: Terms): number | null {
    if (terms.credit === null) return null;
    const base = terms.credit === "prepaid" ? this.balance : this.balance + terms.creditLimit;
    return base - this.reserved;
  }

  private overruns(terms: Terms, amount: number): Overrun[] {
    const out: Overrun[] = [];
    const daily = terms.budgets.daily;
    if (daily !== undefined && this.day.spent + this.reserved + amount > daily) out.push({ period: "daily", key: this.day.key, budget: daily, spent: this.day.spent, reserved: this.reserved });
    const monthly = terms.budgets.monthly;
    if (monthly !== undefined && this.month.spent + this.reserved + amount > monthly) out.push({ period: "monthly", key: this.month.key, budget: monthly, spent: this.month.spent, reserved: this.reserved });
    return out;
  }
}
