// Monthly invoices derived from the ledger (docs/billing.md "Invoices"): one per project and UTC
// month, lines per model (requests, tokens, cost, markup, charge), credits, cached savings and
// totals. Nothing is stored: the same ledger always gives the same invoice.
import type { LeaderJob } from "../store/postgres/leader.ts";
import type { LedgerRepo, MonthSums } from "../store/repos/ledger.ts";
import type { Project } from "../store/repos/projects.ts";
import { toUsd } from "./money.ts";
import { monthKey, monthRange, monthStart } from "./periods.ts";
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

/** PostgreSQL's ledger as invoices read it (store/postgres/invoices.ts): LedgerRepo's two reads, async. */
export interface SharedInvoiceLedger {
  monthSums(projectId: string, start: number, end: number): Promise<MonthSums>;
  /** Months ("YYYY-MM") with a credit, charge or cache row. */
  activeMonths(projectId: string): Promise<string[]>;
}

export function invoiceFor(repo: Pick<LedgerRepo, "monthSums">, project: Project, month: string, now: number) {
  const range = monthRange(month);
  if (!range) throw new RangeError(`not a month: ${month}`);
  return invoiceOf(repo.monthSums(project.id, range.start, range.end), project, month, range, now);
}

function invoiceOf(sums: MonthSums, project: Project, month: string, range: { start: number; end: number }, now: number) {
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

export type Invoice = ReturnType<typeof invoiceOf>;

/** `month` given: that month's invoice (empty when nothing happened). Else every month with ledger
 * activity, and always the current one, newest first. */
export function invoicesFor(repo: Pick<LedgerRepo, "monthSums" | "activeMonths">, project: Project, month: string | undefined, now: number) {
  return { object: "list", data: listedMonths(month, now, month ? [] : repo.activeMonths(project.id)).map((m) => invoiceFor(repo, project, m, now)) };
}

const listedMonths = (month: string | undefined, now: number, active: string[]): string[] =>
  month ? [month] : [...new Set([monthKey(now), ...active])].sort().reverse();

/** invoicesFor on PostgreSQL's ledger (the multi-instance mode): the same JSON, read there. */
export async function sharedInvoicesFor(repo: SharedInvoiceLedger, project: Project, month: string | undefined, now: number) {
  const months = listedMonths(month, now, month ? [] : await repo.activeMonths(project.id));
  const data = await Promise.all(months.map(async (m) => {
    const range = monthRange(m);
    if (!range) throw new RangeError(`not a month: ${m}`);
    return invoiceOf(await repo.monthSums(project.id, range.start, range.end), project, m, range, now);
  }));
  return { object: "list", data };
}

/** invoice.created as the webhooks take it (docs/webhooks.md "Event types"); true when stored. */
export type EmitInvoiceEvent = (e: { projectId: string; type: "invoice.created"; key: string; data: Record<string, unknown> }) => unknown;

export const INVOICE_EVENTS_EVERY_MS = 60_000;

/** The multi-instance mode's invoice.created (single-node: monitoring/events/invoice-events.ts): once
 * a UTC month has closed, the leader sends one per project with credit, charge or cache rows in it
 * in PostgreSQL's ledger, with the totals GET .../invoices gives; the month is the natural key, so
 * a new leader sending it again stores nothing. */
export function sharedInvoiceEventsJob(ledger: SharedInvoiceLedger, projects: () => Project[], emit: EmitInvoiceEvent, everyMs = INVOICE_EVENTS_EVERY_MS): LeaderJob {
  let checked: string | null = null;
  return {
    name: "invoice events",
    everyMs,
    async run(_tx, now) {
      const month = monthKey(monthStart(now) - 1);
      const range = monthRange(month);
      if (checked === month || !range) return;
      for (const project of projects()) {
        const sums = await ledger.monthSums(project.id, range.start, range.end);
        if (sums.lines.length === 0 && sums.credits.count === 0 && sums.cached.count === 0) continue;
        const invoice = invoiceOf(sums, project, month, range, now);
        emit({
          projectId: project.id, type: "invoice.created", key: month,
          data: {
            month, status: invoice.status, period_start: invoice.period_start, period_end: invoice.period_end, currency: invoice.currency,
            plan: invoice.plan, billing_mode: invoice.billing_mode, totals: invoice.totals,
          },
        });
      }
      checked = month;
    },
  };
}
