// budget_used_pct's input (docs/monitoring.md "Alert rules"): of the project's daily and monthly
// budgets, the one most used, as the dashboard's usage card reads them.
import type { Billing } from "../../billing/billing.ts";
import { toUsd } from "../../billing/money.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Project } from "../../store/repos/projects.ts";
import type { BudgetUse } from "./metric-value.ts";

export function budgetUseOf(billing: Billing, project: (id: string) => Project | null, clock: Clock): (projectId: string) => BudgetUse | null {
  return (projectId) => {
    const budgets = project(projectId)?.policy.budgets;
    if (!budgets) return null;
    const account = billing.account(projectId);
    account.roll(clock.now());
    let most: BudgetUse | null = null;
    for (const period of ["daily", "monthly"] as const) {
      const limit = budgets[period];
      if (limit === undefined || limit <= 0) continue;
      const spent = toUsd(account.spentIn(period).spent);
      if (most === null || spent / limit > most.spent / most.limit) most = { spent, limit };
    }
    return most;
  };
}
