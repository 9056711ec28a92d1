// What a project's budgets have used on PostgreSQL (docs/scale-out.md "Money on the request path"):
// spent plus reserved of the day's and the month's spend_counters rows, every instance's, nano-USD,
// for budget_action downgrade's routing. One indexed read of at most two rows.
import { bounded, type Postgres } from "./connect.ts";

export interface BudgetUse {
  daily: number;
  monthly: number;
}

export async function budgetUse(pg: Postgres, projectId: string, day: string, month: string): Promise<BudgetUse> {
  const rows: Array<{ period: string; used: number }> = await bounded(pg, "budget use", () => pg.sql`
    SELECT period, (spent + reserved)::float8 AS used FROM spend_counters
    WHERE project_id = ${projectId} AND ((period = 'daily' AND period_key = ${day}) OR (period = 'monthly' AND period_key = ${month}))`);
  const used = (period: string) => Number(rows.find((r) => r.period === period)?.used ?? 0);
  return { daily: used("daily"), monthly: used("monthly") };
}
