// A project's billing terms for the request path (docs/api.md "Admin API": plan, billing, policy.budgets,
// policy.budget_action), in nano-USD. Null terms: nothing to reserve or check (postpaid without a
// credit limit, no budgets, no allowance), so such requests never load an account.
import type { Project } from "../store/repos/projects.ts";
import type { BudgetAction, Period, Terms } from "./account.ts";
import { toNano } from "./money.ts";
import { PLANS } from "./plans.ts";

const ACTIONS: readonly string[] = ["block", "downgrade", "warn"];

function budgetsOf(policy: Record<string, unknown>): Partial<Record<Period, number>> {
  const b = policy.budgets;
  if (typeof b !== "object" || b === null) return {};
  const out: Partial<Record<Period, number>> = {};
  const { daily, monthly } = b as { daily?: unknown; monthly?: unknown };
  if (typeof daily === "number") out.daily = toNano(daily);
  if (typeof monthly === "number") out.monthly = toNano(monthly);
  return out;
}

/** Cached per project object: the auth cache hands the same object to every request for a while,
 * and an admin write replaces it, so terms follow the project without being rebuilt per request. */
const cache = new WeakMap<Project, Terms | null>();

export function termsOf(project: Project): Terms | null {
  const hit = cache.get(project);
  if (hit !== undefined) return hit;
  const budgets = budgetsOf(project.policy);
  const action = project.policy.budget_action;
  const credit = project.billingMode === "prepaid" ? "prepaid" : project.creditLimit !== null ? "limit" : null;
  const monthlyRequests = PLANS[project.plan]?.monthlyRequests ?? null;
  const terms: Terms | null = credit === null && monthlyRequests === null && budgets.daily === undefined && budgets.monthly === undefined
    ? null
    : {
      credit, creditLimit: toNano(project.creditLimit ?? 0), budgets, monthlyRequests,
      action: typeof action === "string" && ACTIONS.includes(action) ? (action as BudgetAction) : "block",
    };
  cache.set(project, terms);
  return terms;
}
