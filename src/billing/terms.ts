// A project's billing terms for the request path (docs/api.md "Admin API": plan, billing, policy.budgets,
// policy.budget_action), in nano-USD. Null terms: nothing to reserve or check (postpaid without a
// credit limit, no budgets, no allowance), so such requests never load an account.
import type { Policy } from "../schema/admin.ts";
import type { Project } from "../store/repos/projects.ts";
import type { Period, Terms } from "./account.ts";
import { toNano } from "./money.ts";
import { PLANS } from "./plans.ts";

function budgetsOf(budgets: Policy["budgets"]): Partial<Record<Period, number>> {
  const out: Partial<Record<Period, number>> = {};
  if (budgets?.daily !== undefined) out.daily = toNano(budgets.daily);
  if (budgets?.monthly !== undefined) out.monthly = toNano(budgets.monthly);
  return out;
}

/** Built once per authenticated key, with the project's other rules (auth/project-rules.ts). */
export function termsOf(project: Project): Terms | null {
  const budgets = budgetsOf(project.policy.budgets);
  const credit = project.billingMode === "prepaid" ? "prepaid" : project.creditLimit !== null ? "limit" : null;
  const monthlyRequests = PLANS[project.plan]?.monthlyRequests ?? null;
  if (credit === null && monthlyRequests === null && budgets.daily === undefined && budgets.monthly === undefined) return null;
  return Object.freeze({
    credit, creditLimit: toNano(project.creditLimit ?? 0), budgets: Object.freeze(budgets), monthlyRequests,
    action: project.policy.budget_action ?? "block",
  });
}
