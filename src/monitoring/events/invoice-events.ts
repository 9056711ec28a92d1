// invoice.created (docs/webhooks.md "Event types"): once a UTC month has closed, one event per
// project with ledger activity in it, carrying the totals GET .../invoices computes for that month.
import { invoiceFor } from "../../billing/invoices.ts";
import { monthKey, monthStart } from "../../billing/periods.ts";
import type { LedgerRepo } from "../../store/repos/ledger.ts";
import type { Project } from "../../store/repos/projects.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";

export interface InvoiceSources {
  ledger: LedgerRepo;
  projects: () => Project[];
  /** Writes the ledger rows still queued, so the closed month's sums are complete. */
  flushLedger: () => void;
}

export class InvoiceEvents {
  /** The last closed month every project was checked for; a restart checks it once more (the
   * natural key, the month, drops what was already sent). */
  private checked: string | null = null;

  constructor(private readonly emit: EmitEvent, private readonly sources: InvoiceSources) {}

  /** Emits invoice.created for the month before `now`'s, once per process; returns how many. */
  check(now: number): number {
    const month = monthKey(monthStart(now) - 1);
    if (this.checked === month) return 0;
    this.sources.flushLedger();
    let sent = 0;
    for (const project of this.sources.projects()) {
      if (!this.sources.ledger.activeMonths(project.id).includes(month)) continue;
      const invoice = invoiceFor(this.sources.ledger, project, month, now);
      const data = {
        month, status: invoice.status, period_start: invoice.period_start, period_end: invoice.period_end, currency: invoice.currency,
        plan: invoice.plan, billing_mode: invoice.billing_mode, totals: invoice.totals,
      };
      if (this.emit({ projectId: project.id, type: "invoice.created", key: month, data })) sent++;
    }
    this.checked = month;
    return sent;
  }
}
