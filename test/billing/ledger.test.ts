// The ledger and the billing service over a real SQLite file (docs/billing.md "The ledger"):
// batched writes, accounts that include every queued entry, open holds released at start, credits
// written by another process, and balances carried over by migration 007.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Billing } from "../../src/billing/billing.ts";
import type { Terms } from "../../src/billing/account.ts";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { MIGRATIONS, migrate } from "../../src/store/migrate.ts";
import { ledgerRepo } from "../../src/store/repos/ledger.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "gw-ledger-"));
  dirs.push(dir);
  const db = openDatabase(dir);
  const repo = ledgerRepo(db);
  const errors: unknown[] = [];
  return { dir, db, repo, billing: new Billing(repo, (err) => errors.push(err)), errors };
}
const prepaid: Terms = { credit: "prepaid", creditLimit: 0, budgets: {}, action: "block", monthlyRequests: null };
const count = (db: Database, kind: string) => db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM ledger WHERE kind = ?").get(kind)!.n;

describe("LedgerWriter", () => {
  test("entries of one turn are written together on the next; drain waits for them", async () => {
    const { db, billing } = fresh();
    for (let i = 0; i < 5; i++) billing.settle("prj_a", undefined, { requestId: `r${i}`, model: "m", charge: 10, cost: 9, inputTokens: 1, outputTokens: 1, byok: false });
    expect(count(db, "charge")).toBe(0);
    expect(billing.writer.pending).toBe(5);
    await billing.drain();
    expect(count(db, "charge")).toBe(5);
  });

  test("an account read from the table first writes what is queued, so nothing is missed", () => {
    const { billing } = fresh();
    billing.settle("prj_b", undefined, { requestId: "r1", model: "m", charge: 70, cost: 64, inputTokens: 1, outputTokens: 1, byok: false });
    const a = billing.account("prj_b");
    expect(a).toMatchObject({ balance: -70, day: { spent: 70 }, month: { spent: 70, requests: 1 } });
  });
});

describe("Billing", () => {
  test("reserve, settle, release keep the table and the account in step; recover() releases what was left open", async () => {
    const { db, repo, billing } = fresh();
    billing.credit("prj_c", 1, "test");
    const ok = billing.reserve("prj_c", "r1", prepaid, 400_000_000);
    const left = billing.reserve("prj_c", "r2", prepaid, 500_000_000);
    const released = billing.reserve("prj_c", "r3", prepaid, 100_000_000);
    expect(billing.reserve("prj_c", "r4", prepaid, 1).ok).toBe(false);
    if (!ok.ok || !left.ok || !released.ok) throw new Error("reservations refused");
    billing.settle("prj_c", ok.hold, { requestId: "r1", model: "m", charge: 300_000_000, cost: 272_727_273, inputTokens: 1, outputTokens: 1, byok: false });
    billing.release(released.hold);
    await billing.drain();
    expect(repo.openHoldCount()).toBe(1);
    expect(billing.account("prj_c")).toMatchObject({ balance: 700_000_000, reserved: 500_000_000 });
    // A new process over the same file: r2's hold belonged to a request that is gone.
    const next = new Billing(ledgerRepo(db), () => {});
    expect(next.recover()).toBe(1);
    expect(repo.openHoldCount()).toBe(0);
    expect(next.account("prj_c")).toMatchObject({ balance: 700_000_000, reserved: 0 });
    expect(count(db, "release")).toBe(2);
  });

  test("credits written by another connection (the CLI) are applied once, including ones before the load", () => {
    const { dir, billing } = fresh();
    const other = new Database(join(dir, DB_FILE));
    const cli = ledgerRepo(other);
    cli.append({ projectId: "prj_d", kind: "credit", amount: 5, createdAt: Date.now() });
    expect(billing.account("prj_d").balance).toBe(5);
    cli.append({ projectId: "prj_d", kind: "credit", amount: 7, createdAt: Date.now() });
    billing.pollCredits();
    billing.pollCredits();
    expect(billing.account("prj_d").balance).toBe(12);
    other.close();
  });

  test("a budget event is recorded once per period and action", () => {
    const { db, billing } = fresh();
    billing.account("prj_e");
    const o = { period: "daily", key: "2026-11-22", budget: 1, spent: 2, reserved: 0 };
    billing.budgetEvent("prj_e", "r1", o, "warn");
    billing.budgetEvent("prj_e", "r2", o, "warn");
    billing.budgetEvent("prj_e", "r3", o, "block");
    expect(db.query("SELECT action, request_id FROM budget_events").all()).toEqual([{ action: "warn", request_id: "r1" }, { action: "block", request_id: "r3" }]);
  });
});

describe("migration 007", () => {
  test("balances kept on projects before the ledger become credit entries", () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-ledger-mig-"));
    dirs.push(dir);
    const db = new Database(join(dir, DB_FILE), { create: true, strict: true });
    db.run("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of MIGRATIONS.filter((x) => x.version < 7)) {
      db.run(m.sql);
      db.run("INSERT INTO schema_migrations VALUES (?, 0)", [m.version]);
    }
    db.run("INSERT INTO projects (id, name, plan, billing_mode, balance, policy, created_at) VALUES ('prj_old', 'old', 'pro', 'prepaid', 7.5, '{}', 1)");
    migrate(db);
    expect(ledgerRepo(db).balanceOf("prj_old")).toBe(7_500_000_000);
    db.close();
  });
});
