// Monthly invoices derived from the ledger (docs/billing.md "Invoices"): one per project and UTC
// month, lines per model (requests, tokens, cost, markup, charge), credits, cached savings and
// totals. Nothing is stored: the same ledger always gives the same invoice.
import type { LedgerRepo } from "../store/repos/ledger.ts";
import type { Project } from "../store/repos/projects.ts";
import { toUsd } from "./money.ts";
import { monthKey, monthRange } from "./periods.ts";
import { PLANS } from "./plans.ts";

export interface InvoiceLine {
  model: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  markup: number;
  charge: number;
}

export function invoiceFor(repo: LedgerRepo, project: Project, month: string, now: number) {
  const range = monthRange(month);
  if (!range) throw new RangeError(`not a month: ${month}`);
  const sums = repo.monthSums(project.id, range.start, range.end);
  const totals = { requests: 0, input_tokens: 0, output_tokens: 0, cost: 0, charge: 0 };
  const lines: InvoiceLine[] = sums.lines.map((r) => {
    totals.requests += r.requests;
    totals.input_tokens += r.input_tokens;
    totals.output_tokens += r.output_tokens;
    totals.cost += r.cost;
    totals.charge += r.charge;
    // Summed in nano-USD and converted once, so a line's cost + markup is its charge exactly.
    return {
      model: r.model, requests: r.requests, input_tokens: r.input_tokens, output_tokens: r.output_tokens,
      cost: toUsd(r.cost), markup: toUsd(r.charge - r.cost), charge: toUsd(r.charge),
    };
  });
  const plan = PLANS[project.plan];
  return {
    object: "invoice",
    project_id: project.id,
    month,
    period_start: new Date(range.start).toISOString(),
    period_end: new Date(range.end).toISOString(),
    // A month still under way can gain lines; a past one cannot.
    status: range.end > now ? "open" : "closed",
    currency: "usd",
    // The subscription is priced in EUR and listed apart: gw converts no currencies.
    plan: { name: project.plan, price: plan.priceEur, currency: "eur", included_requests: plan.monthlyRequests },
    billing_mode: project.billingMode,
    lines,
    credits: { count: sums.credits.count, amount: toUsd(sums.credits.amount) },
    cached: { requests: sums.cached.count, saved: toUsd(sums.cached.saved) },
    totals: {
      requests: totals.requests, input_tokens: totals.input_tokens, output_tokens: totals.output_tokens,
      cost: toUsd(totals.cost), markup: toUsd(totals.charge - totals.cost), charge: toUsd(totals.charge),
      credits: toUsd(sums.credits.amount), cached_saved: toUsd(sums.cached.saved),
    },
  };
}

export type Invoice = ReturnType<typeof invoiceFor>;

/** `month` given: that month's invoice (empty when nothing happened). Else every month with ledger
 * activity, and always the current one, newest first. */
export function invoicesFor(repo: LedgerRepo, project: Project, month: string | undefined, now: number) {
  const months = month ? [month] : [...new Set([monthKey(now), ...repo.activeMonths(project.id)])].sort().reverse();
  return { object: "list", data: months.map((m) => invoiceFor(repo, project, m, now)) };
}
