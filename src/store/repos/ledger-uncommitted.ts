// Ledger entries not committed yet (request charges on their way with their log rows, billing/
// pending-charges.ts): the ledger's sums add those a read does not find in the table, so balances,
// budgets, the plan's count and invoices include every charge this process made.
import type { AccountTotals, LedgerEntry, MonthSums } from "./ledger-types.ts";

export interface UncommittedLedger {
  /** The project's settle entries (charge and cache rows) not known to be committed, or null. */
  of(projectId: string): LedgerEntry[] | null;
}

export const chargedSum = (entries: LedgerEntry[]): number => {
  let sum = 0;
  for (const e of entries) if (e.kind === "charge") sum += e.amount;
  return sum;
};

export function addToTotals(t: AccountTotals, entries: LedgerEntry[], dayFrom: number, monthFrom: number): void {
  for (const e of entries) {
    if (e.kind !== "charge") continue;
    t.balance -= e.amount;
    if (e.createdAt >= dayFrom) t.daySpent += e.amount;
    if (e.createdAt >= monthFrom) (t.monthSpent += e.amount), t.monthRequests++;
  }
}

/** Charge rows join their model's line (lines stay in model order), cache rows the cached sums. */
export function addToMonth(sums: MonthSums, entries: LedgerEntry[], start: number, end: number): void {
  let added = false;
  for (const e of entries) {
    if (e.createdAt < start || e.createdAt >= end) continue;
    if (e.kind === "cache") {
      sums.cached.count++;
      sums.cached.saved += e.saved ?? 0;
      continue;
    }
    if (e.kind !== "charge") continue;
    const model = e.model ?? null;
    let line = sums.lines.find((l) => l.model === model);
    if (!line) sums.lines.push((line = { model, requests: 0, input_tokens: 0, output_tokens: 0, cost: 0, charge: 0 })), (added = true);
    line.requests++;
    line.input_tokens += e.inputTokens ?? 0;
    line.output_tokens += e.outputTokens ?? 0;
    line.cost += e.cost ?? 0;
    line.charge += e.amount;
  }
  // SQLite's ORDER BY model: NULL first, then by bytes.
  if (added) sums.lines.sort((a, b) => (a.model === b.model ? 0 : a.model === null ? -1 : b.model === null ? 1 : a.model < b.model ? -1 : 1));
}

/** The months with activity (newest first), with those of uncommitted entries. */
export function withMonths(months: string[], entries: LedgerEntry[]): string[] {
  if (entries.length === 0) return months;
  const all = new Set(months);
  for (const e of entries) all.add(new Date(e.createdAt).toISOString().slice(0, 7));
  return [...all].sort().reverse();
}
