// budget_used_pct's input (docs/monitoring.md "Alert rules"): of the project's daily and monthly
// budgets, the one most used, as the dashboard's usage card reads them; with several instances, from
// PostgreSQL's spend counters (docs/scale-out.md).
import type { Billing } from "../../billing/billing.ts";
import { toUsd } from "../../billing/money.ts";
import { dayKey, monthKey } from "../../billing/periods.ts";
import type { Clock } from "../../lib/clock.ts";
import { bounded, type Postgres } from "../../store/postgres/connect.ts";
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

/** The same from the spend counters every instance charges (nano-USD), at the evaluation's clock. */
export function sharedBudgetUseOf(pg: Postgres, project: (id: string) => Project | null, clock: Clock): (projectId: string) => Promise<BudgetUse | null> {
  return async (projectId) => {
    const budgets = project(projectId)?.policy.budgets;
    if (!budgets) return null;
    const now = clock.now();
    const rows: Array<{ period: string; spent: string }> = await bounded(pg, "budget use", () => pg.sql`SELECT period, spent FROM spend_counters
      WHERE project_id = ${projectId} AND ((period = 'daily' AND period_key = ${dayKey(now)}) OR (period = 'monthly' AND period_key = ${monthKey(now)}))`);
    let most: BudgetUse | null = null;
    for (const period of ["daily", "monthly"] as const) {
      const limit = budgets[period];
      if (limit === undefined || limit <= 0) continue;
      const spent = toUsd(Number(rows.find((r) => r.period === period)?.spent ?? 0));
      if (most === null || spent / limit > most.spent / most.limit) most = { spent, limit };
    }
    return most;
  };
}
