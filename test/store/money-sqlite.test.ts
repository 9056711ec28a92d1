// The money store contract against the single-node implementation: today's Billing on a SQLite
// data directory, its ledger rows read back once the ledger writer has written them.
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Billing } from "../../src/billing/billing.ts";
import { sqliteMoneyStore } from "../../src/billing/money-sqlite.ts";
import { openDatabase } from "../../src/store/db.ts";
import { ledgerRepo } from "../../src/store/repos/ledger.ts";
import { moneyBudgetContract } from "./contract/money-budgets.contract.ts";
import { type LedgerRow, type MoneyHarness, moneyContract } from "./contract/money.contract.ts";

const opened: Array<{ db: Database; dir: string; billing: Billing }> = [];
afterAll(() => {
  for (const o of opened) o.billing.stop(), o.db.close(), rmSync(o.dir, { recursive: true, force: true });
});

async function make(): Promise<MoneyHarness> {
  const dir = mkdtempSync(join(tmpdir(), "gw-money-"));
  const db = openDatabase(dir);
  const billing = new Billing(ledgerRepo(db), (err) => {
    throw err;
  });
  opened.push({ db, dir, billing });
  const rows = db.query<{ kind: string; request_id: string | null; amount: number }, [string]>("SELECT kind, request_id, amount FROM ledger WHERE project_id = ? ORDER BY seq");
  return {
    store: sqliteMoneyStore(billing),
    async ledger(projectId: string): Promise<LedgerRow[]> {
      await billing.drain();
      return rows.all(projectId).map((r) => ({ kind: r.kind, requestId: r.request_id, amount: r.amount }));
    },
  };
}

moneyContract("sqlite", make);
moneyBudgetContract("sqlite", make);
