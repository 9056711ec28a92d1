// Credits and invoices for the admin API and the CLI (docs/api.md "Admin API"; docs/billing.md). The server
// goes through its Billing (in-memory accounts), or PostgreSQL's money store in the multi-instance mode;
// the CLI writes the ledger directly, and a running server picks its credits up within seconds.
import { MAX_BALANCE_NANO, toNano, toUsd } from "../billing/money.ts";
import { invoicesFor, sharedInvoicesFor, type SharedInvoiceLedger } from "../billing/invoices.ts";
import { monthRange } from "../billing/periods.ts";
import { invalidRequest } from "../errors/gw-error.ts";
import type { MoneyStore } from "../store/money-store.ts";
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
  checkAmount(amount);
  checkBalance(book.balance(projectId), amount);
  return { object: "credits", balance: toUsd(book.credit(projectId, amount, note)) };
}

function checkAmount(amount: number): void {
  if (!Number.isFinite(amount) || amount <= 0) throw invalidRequest("'amount' must be a number of USD above 0.", "amount");
}

function checkBalance(balance: number, amount: number): void {
  // Balances are exact integers of nano-USD only below 2^53.
  if (balance + toNano(amount) > MAX_BALANCE_NANO) {
    throw invalidRequest(`A balance may not exceed ${toUsd(MAX_BALANCE_NANO).toLocaleString("en-US")} USD.`, "amount");
  }
}

/** The multi-instance mode's credit (docs/scale-out.md "PostgreSQL"): the same checks and answer,
 * the credit committed in PostgreSQL before it resolves. */
export async function addSharedCredits(money: MoneyStore, projectId: string, amount: number, note: string | null, now: number) {
  checkAmount(amount);
  checkBalance((await money.figures(projectId)).balance, amount);
  return { object: "credits", balance: toUsd(await money.credit(projectId, toNano(amount), note, now)) };
}

/** A view made with a project's balance (nano-USD): the server's Billing on single-node, at once;
 * PostgreSQL's account in the multi-instance mode (`money` set), a promise then. */
export function withBalance<T>(book: Pick<CreditBook, "balance">, money: MoneyStore | null, projectId: string, view: (balance: number) => T): T | Promise<T> {
  if (!money) return view(book.balance(projectId));
  return money.figures(projectId).then((f) => view(f.balance));
}

/** withBalance for several projects (the admin list: tens of projects, one read each). */
export function withBalances<T>(book: Pick<CreditBook, "balance">, money: MoneyStore | null, projectIds: string[], view: (balances: number[]) => T): T | Promise<T> {
  if (!money) return view(projectIds.map((id) => book.balance(id)));
  return Promise.all(projectIds.map((id) => money.figures(id))).then((all) => view(all.map((f) => f.balance)));
}

function checkMonth(month: string | null | undefined): void {
  if (month !== undefined && month !== null && !monthRange(month)) {
    throw invalidRequest(`'month' must be a month as YYYY-MM (UTC), e.g. 2026-11; got '${month}'.`, "month");
  }
}

/** `now` decides which month is still open (deps.clock.now() in the server). */
export function listInvoices(repo: LedgerRepo, project: Project, month: string | null | undefined, now = Date.now()) {
  checkMonth(month);
  return invoicesFor(repo, project, month ?? undefined, now);
}

/** listInvoices in the multi-instance mode: the same checks and JSON, from PostgreSQL's ledger
 * (docs/scale-out.md). */
export async function listSharedInvoices(ledger: SharedInvoiceLedger, project: Project, month: string | null | undefined, now: number) {
  checkMonth(month);
  return sharedInvoicesFor(ledger, project, month ?? undefined, now);
}
