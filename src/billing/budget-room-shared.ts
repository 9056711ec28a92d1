// budget_action downgrade in the multi-instance mode (docs/billing.md, docs/scale-out.md "Money on
// the request path"): the room routing narrows models to is read from PostgreSQL's spend counters,
// once per request and only for projects with a downgrade budget, as holds.ts's downgradeRoom reads memory.
import type { Postgres } from "../store/postgres/connect.ts";
import { budgetUse } from "../store/postgres/budget-room.ts";
import type { Terms } from "./account.ts";
import type { BudgetRoom } from "./holds.ts";
import { dayKey, monthKey } from "./periods.ts";

/** The tightest budget left (nano-USD), or null when there is nothing to read (no downgrade budget). */
export function sharedDowngradeRoom(pg: Postgres, projectId: string, terms: Terms | null, now: number): Promise<BudgetRoom | undefined> | null {
  if (!terms || terms.action !== "downgrade") return null;
  const { daily, monthly } = terms.budgets;
  if (daily === undefined && monthly === undefined) return null;
  return budgetUse(pg, projectId, dayKey(now), monthKey(now)).then((used) => {
    let room: BudgetRoom | undefined;
    for (const [period, budget] of [["daily", daily], ["monthly", monthly]] as const) {
      if (budget === undefined) continue;
      const remaining = Math.max(0, budget - used[period]);
      if (!room || remaining < room.remaining) room = { period, remaining };
    }
    return room;
  });
}
