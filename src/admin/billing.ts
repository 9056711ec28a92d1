// Credits and invoices for the admin API and the CLI (docs/api.md "Admin API"; docs/billing.md). The server
// goes through its Billing (in-memory accounts); the CLI writes the ledger directly, and a running
// server picks its credits up within seconds (Billing.pollCredits).
import { MAX_BALANCE_NANO, toNano, toUsd } from "../billing/money.ts";
import { invoicesFor } from "../billing/invoices.ts";
import { monthRange } from "../billing/periods.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import type { LedgerRepo } from "../store/repos/ledger.ts";
import type { Project } from "../store/repos/projects.ts";

/** What adding credits needs: the server's Billing, or the ledger itself (offlineCredits). */
export interface CreditBook {
  balance(projectId: string): number;
  credit(projectId: string, usd: number, note: string | null): number;
}

export function offlineCredits(repo: LedgerRepo): CreditBook {
  return {
    balance: (projectId) => repo.balanceOf(projectId),
    credit(projectId, usd, note) {
      repo.append({ projectId, kind: "credit", amount: toNano(usd), note, createdAt: Date.now() });
      return repo.balanceOf(projectId);
    },
  };
}

/** A ledger credit entry; on postpaid projects it is a payment. */
export function addCredits(book: CreditBook, projectId: string, amount: number, note: string | null) {
  if (!Number.isFinite(amount) || amount <= 0) throw invalidRequest("'amount' must be a number of USD above 0.", "amount");
  // Balances are exact integers of nano-USD only below 2^53.
  if (book.balance(projectId) + toNano(amount) > MAX_BALANCE_NANO) {
    throw invalidRequest(`A balance may not exceed ${toUsd(MAX_BALANCE_NANO).toLocaleString("en-US")} USD.`, "amount");
  }
  return { object: "credits", balance: toUsd(book.credit(projectId, amount, note)) };
}

/** `now` decides which month is still open (deps.clock.now() in the server). */
export function listInvoices(repo: LedgerRepo, project: Project, month: string | null | undefined, now = Date.now()) {
  if (month !== undefined && month !== null && !monthRange(month)) {
    throw invalidRequest(`'month' must be a month as YYYY-MM (UTC), e.g. 2026-11; got '${month}'.`, "month");
  }
  return invoicesFor(repo, project, month ?? undefined, now);
}
