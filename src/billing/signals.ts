// What billing tells the monitoring layer (docs/webhooks.md "Event types"): figures before and after
// each step, so a listener finds threshold crossings in O(1). Billing never imports the listener.
import type { Admission, Figures, Overrun, Period, Terms, TopUp } from "./account.ts";

export type { Figures, TopUp };

export interface BillingSignals {
  /** A charge moved the account from `before` to `after`. */
  charged(projectId: string, requestId: string, terms: Terms, before: Figures, after: Figures, topUp: TopUp | null): void;
  /** A request was refused (402) for its plan allowance or its credit. */
  refused(projectId: string, requestId: string, terms: Terms, code: (Admission & { ok: false })["code"], now: Figures, topUp: TopUp | null): void;
  /** A budget stopped a request, or was passed by one under `warn`. */
  overBudget(projectId: string, requestId: string, overrun: Overrun, action: Terms["action"]): void;
  /** budget_action downgrade left a model out for this request. */
  downgraded(projectId: string, requestId: string, room: { period: Period; remaining: number }, periodKey: string): void;
  /** A credit row (admin API, CLI, another process) reached the server; `balance` includes it. */
  credited(projectId: string, top: TopUp, balance: number): void;
}
