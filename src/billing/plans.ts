// Plans (docs/billing.md "Plans"): Free, Pro and Business. Prices are the
// subscription in EUR; usage is charged in USD on every plan.
import type { Plan } from "../store/repos/projects.ts";

/** Business-only features. Only zero retention exists in gw; SSO and the audit log are listed so
 * the invoice and docs name them, and are gated here once they are built. */
export type PlanFeature = "sso" | "audit_log" | "zero_retention";

export interface PlanTerms {
  priceEur: number;
  /** Requests a month (UTC calendar month); null: no allowance. */
  monthlyRequests: number | null;
  features: readonly PlanFeature[];
}

export const PLANS: Readonly<Record<Plan, PlanTerms>> = {
  free: { priceEur: 0, monthlyRequests: 10_000, features: [] },
  pro: { priceEur: 49, monthlyRequests: null, features: [] },
  business: { priceEur: 199, monthlyRequests: null, features: ["sso", "audit_log", "zero_retention"] },
};

export const planHas = (plan: Plan, feature: PlanFeature): boolean => PLANS[plan].features.includes(feature);
