// The billing ledger (migration 007, docs/billing.md): append-only entries in nano-USD, the open
// holds beside them, and the sums balances, budgets, the plan allowance and invoices are read from.
import type { Database } from "bun:sqlite";
import { addToMonth, addToTotals, chargedSum, withMonths, type UncommittedLedger } from "./ledger-uncommitted.ts";
import type { AccountTotals, InvoiceLineRow, LedgerEntry, LedgerKind, MonthSums } from "./ledger-types.ts";

export type { AccountTotals, InvoiceLineRow, LedgerEntry, LedgerKind, MonthSums } from "./ledger-types.ts";

type Sum = { s: number | null; n: number };

export function ledgerRepo(db: Database) {
  const insert = db.query(
    `INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, note, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const openHold = db.query("INSERT OR REPLACE INTO ledger_open_holds (request_id, project_id, amount, created_at) VALUES (?, ?, ?, ?)");
  const closeHold = db.query("DELETE FROM ledger_open_holds WHERE request_id = ?");
  const sumKind = db.query<Sum, [string, string, number]>(
    "SELECT sum(amount) AS s, count(*) AS n FROM ledger WHERE project_id = ? AND kind = ? AND created_at >= ?",
  );
  const lastCredit = db.query<{ seq: number | null }, [string]>("SELECT max(seq) AS seq FROM ledger WHERE kind = 'credit' AND project_id = ?");
  const creditsAfter = db.query<{ seq: number; project_id: string; amount: number }, [number]>(
    "SELECT seq, project_id, amount FROM ledger WHERE kind = 'credit' AND seq > ? ORDER BY seq",
  );
  const maxCredit = db.query<{ seq: number | null }, []>("SELECT max(seq) AS seq FROM ledger WHERE kind = 'credit'");
  const allOpen = db.query<{ request_id: string; project_id: string; amount: number }, []>("SELECT request_id, project_id, amount FROM ledger_open_holds");
  const clearOpen = db.query("DELETE FROM ledger_open_holds");
  const lines = db.query<InvoiceLineRow, [string, number, number]>(
    `SELECT model, count(*) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
            sum(cost) AS cost, sum(amount) AS charge
     FROM ledger WHERE project_id = ? AND kind = 'charge' AND created_at >= ? AND created_at < ? GROUP BY model ORDER BY model`,
  );
  const rangeSum = db.query<{ n: number; s: number | null; saved: number | null }, [string, string, number, number]>(
    "SELECT count(*) AS n, sum(amount) AS s, sum(saved) AS saved FROM ledger WHERE project_id = ? AND kind = ? AND created_at >= ? AND created_at < ?",
  );
  const months = db.query<{ month: string }, [string]>(
    `SELECT DISTINCT strftime('%Y-%m', created_at / 1000, 'unixepoch') AS month FROM ledger
     WHERE project_id = ? AND kind IN ('credit', 'charge', 'cache') ORDER BY month DESC`,
  );
  const budgetEvent = db.query(
    `INSERT OR IGNORE INTO budget_events (project_id, period, period_key, action, budget, spent, reserved, request_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  const write = (e: LedgerEntry): number => {
    const r = insert.run(e.projectId, e.kind, e.amount, e.requestId ?? null, e.model ?? null, e.inputTokens ?? 0, e.outputTokens ?? 0,
      e.cost ?? 0, e.saved ?? 0, e.byok ? 1 : 0, e.note ?? null, e.createdAt);
    if (e.kind === "hold" && e.requestId) openHold.run(e.requestId, e.projectId, e.amount, e.createdAt);
    else if (e.closesHold && e.requestId) closeHold.run(e.requestId);
    return Number(r.lastInsertRowid);
  };
  const appendMany = db.transaction((entries: LedgerEntry[]) => {
    for (const e of entries) write(e);
  });
  const settledRow = db.query<{ one: number }, [string, string, number, string]>(
    "SELECT 1 AS one FROM ledger WHERE project_id = ? AND kind = ? AND created_at = ? AND request_id = ?",
  );
  /** A request's entries, unless its charge (or cache row) is already written (a retried batch). */
  const appendOnce = db.transaction((entries: LedgerEntry[]) => {
    const settle = entries.find((e) => e.kind === "charge" || e.kind === "cache");
    if (settle?.requestId && settledRow.get(settle.projectId, settle.kind, settle.createdAt, settle.requestId)) return;
    for (const e of entries) write(e);
  });
  // Settle rows since a time: which uncommitted entries a read already finds in the table.
  const settledSince = db.query<{ request_id: string | null }, [string, number]>(
    "SELECT request_id FROM ledger WHERE project_id = ? AND kind IN ('charge', 'cache') AND created_at >= ?",
  );
  let uncommitted: UncommittedLedger | null = null;
  /** The project's uncommitted entries this read does not find in the table (called inside the
   * read's transaction: an entry the log worker commits meanwhile is counted once, either way). */
  const unwritten = (projectId: string): LedgerEntry[] => {
    const entries = uncommitted?.of(projectId);
    if (!entries || entries.length === 0) return [];
    let from = Infinity;
    for (const e of entries) from = Math.min(from, e.createdAt);
    const seen = new Set(settledSince.all(projectId, from).map((r) => r.request_id));
    return entries.filter((e) => !seen.has(e.requestId ?? null));
  };
  const releaseOpen = db.transaction((now: number): number => {
    const open = allOpen.all();
    for (const h of open) write({ projectId: h.project_id, kind: "release", amount: h.amount, requestId: h.request_id, note: "restart", createdAt: now });
    clearOpen.run();
    return open.length;
  });
  const sum = (projectId: string, kind: LedgerKind, from = 0): Sum => sumKind.get(projectId, kind, from) ?? { s: 0, n: 0 };
  const storedBalance = (projectId: string): number => (sum(projectId, "credit").s ?? 0) - (sum(projectId, "charge").s ?? 0);
  const balanceOf = db.transaction((projectId: string): number => storedBalance(projectId) - chargedSum(unwritten(projectId)));
  const totals = db.transaction((projectId: string, dayFrom: number, monthFrom: number): AccountTotals => {
    const month = sum(projectId, "charge", monthFrom);
    const t: AccountTotals = {
      balance: storedBalance(projectId), daySpent: sum(projectId, "charge", dayFrom).s ?? 0,
      monthSpent: month.s ?? 0, monthRequests: month.n, creditSeq: lastCredit.get(projectId)?.seq ?? 0,
    };
    addToTotals(t, unwritten(projectId), dayFrom, monthFrom);
    return t;
  });
  const monthSums = db.transaction((projectId: string, start: number, end: number): MonthSums => {
    const credits = rangeSum.get(projectId, "credit", start, end);
    const cached = rangeSum.get(projectId, "cache", start, end);
    const sums = {
      lines: lines.all(projectId, start, end),
      credits: { count: credits?.n ?? 0, amount: credits?.s ?? 0 },
      cached: { count: cached?.n ?? 0, saved: cached?.saved ?? 0 },
    };
    addToMonth(sums, unwritten(projectId), start, end);
    return sums;
  });
  const activeMonths = db.transaction((projectId: string): string[] => withMonths(months.all(projectId).map((r) => r.month), unwritten(projectId)));

  return {
    /** Several entries in one transaction (the batch writer). */
    appendMany: (entries: LedgerEntry[]): void => appendMany.immediate(entries),
    /** Entries written inside the caller's transaction (the log worker's, beside their log rows). */
    appendInTransaction: (entries: LedgerEntry[]): void => {
      for (const e of entries) write(e);
    },
    /** A request's entries in their own transaction, once: nothing when its charge is already written. */
    appendOnce: (entries: LedgerEntry[]): void => appendOnce.immediate(entries),
    /** One entry now, returning its seq (admin credits: acknowledged only once written). */
    append: (entry: LedgerEntry): number => write(entry),
    balanceOf,
    /** One read transaction, so a credit written meanwhile is either in the balance or after creditSeq. */
    totals,
    /** Entries on their way to the table (charges with their log rows), which every sum includes. */
    setUncommitted(u: UncommittedLedger): void {
      uncommitted = u;
    },
    lastCreditSeq: (): number => maxCredit.get()?.seq ?? 0,
    creditsAfter: (seq: number) => creditsAfter.all(seq),
    /** Releases the holds a previous process left open; returns how many. IMMEDIATE: it reads, then
     * writes, and a deferred read lock cannot be upgraded while another connection writes. */
    releaseOpenHolds: (now: number): number => releaseOpen.immediate(now),
    openHoldCount: (): number => allOpen.all().length,
    monthSums,
    activeMonths,
    budgetEvent(e: { projectId: string; period: string; periodKey: string; action: string; budget: number; spent: number; reserved: number; requestId: string; createdAt: number }): void {
      budgetEvent.run(e.projectId, e.period, e.periodKey, e.action, e.budget, e.spent, e.reserved, e.requestId, e.createdAt);
    },
  };
}

export type LedgerRepo = ReturnType<typeof ledgerRepo>;
