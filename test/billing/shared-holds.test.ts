// The multi-instance mode's holds (src/billing/shared-holds.ts) answer a refusal with the very code
// and text single-node's holdCharge gives: both run here on the same figures, the shared one through
// a MoneyStore (the single-node one; PostgreSQL's is tested in test/scale-out/).
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Terms } from "../../src/billing/account.ts";
import { Billing } from "../../src/billing/billing.ts";
import { holdCharge, newBillingState } from "../../src/billing/holds.ts";
import { sqliteMoneyStore } from "../../src/billing/money-sqlite.ts";
import { holdShared, reserveAskOf } from "../../src/billing/shared-holds.ts";
import { GwError } from "../../src/errors/gw-error.ts";
import { openDatabase } from "../../src/store/db.ts";
import { ledgerRepo } from "../../src/store/repos/ledger.ts";

const opened: Array<{ db: Database; dir: string; billing: Billing }> = [];
afterAll(() => {
  for (const o of opened) o.billing.stop(), o.db.close(), rmSync(o.dir, { recursive: true, force: true });
});

function billing(): Billing {
  const dir = mkdtempSync(join(tmpdir(), "gw-shared-holds-"));
  const db = openDatabase(dir);
  const b = new Billing(ledgerRepo(db), (err) => {
    throw err;
  });
  opened.push({ db, dir, billing: b });
  return b;
}

const terms = (t: Partial<Terms>): Terms => ({ credit: null, creditLimit: 0, budgets: {}, action: "block", monthlyRequests: null, ...t });
/** Billing reads the wall clock: the shared side asks for the same instant's periods. */
const NOW = Date.now();

/** The error of the `n`-th hold of `amount` (earlier ones held), single-node and shared. */
async function refusals(t: Terms, credit: number, amount: number, n = 1): Promise<[GwError | null, GwError | null]> {
  const single = billing();
  const shared = billing();
  const money = sqliteMoneyStore(shared);
  if (credit > 0) single.credit("p", credit / 1e9, null, NOW), await money.credit("p", credit, null, NOW);
  let a: GwError | null = null;
  let b: GwError | null = null;
  for (let i = 0; i < n; i++) {
    try {
      holdCharge(single, newBillingState("prepaid"), { projectId: "p", requestId: `r${i}`, terms: t, amount });
    } catch (err) {
      a = err instanceof GwError ? err : null;
    }
    await holdShared(money, newBillingState("prepaid"), { projectId: "p", requestId: `r${i}`, terms: t, amount }, NOW).catch((err: unknown) => {
      b = err instanceof GwError ? err : null;
    });
  }
  return [a, b];
}

describe("shared holds: single-node's 402s", () => {
  test.each([
    ["prepaid balance", terms({ credit: "prepaid" }), 1_000, 5_000, 1, "insufficient_credits"],
    ["credit limit", terms({ credit: "limit", creditLimit: 500 }), 0, 1_000, 1, "insufficient_credits"],
    ["daily budget", terms({ budgets: { daily: 1_000 } }), 0, 2_000, 1, "budget_exceeded"],
    ["monthly budget, downgrade", terms({ budgets: { monthly: 3_000 }, action: "downgrade" }), 0, 2_000, 2, "budget_exceeded"],
    ["plan allowance", terms({ monthlyRequests: 1 }), 0, 10, 2, "plan_limit"],
  ] as const)("%s: same code and text", async (_, t, credit, amount, n, code) => {
    const [single, shared] = await refusals(t, credit, amount, n);
    expect(single?.code).toBe(code);
    expect(shared?.code).toBe(code);
    expect(shared?.message).toBe(single?.message ?? "");
    expect(shared?.status).toBe(402);
  });

  test("the ask carries block and downgrade budgets and the plan, never warn's budgets", () => {
    const at = Date.UTC(2026, 10, 26, 12);
    const block = reserveAskOf("p", "r", terms({ credit: "prepaid", budgets: { daily: 5, monthly: 9 }, monthlyRequests: 10 }), 3, at);
    expect(block).toEqual({
      projectId: "p", requestId: "r", amount: 3, allowance: 0, now: at,
      budgets: [{ period: "daily", key: "2026-11-26", limit: 5 }, { period: "monthly", key: "2026-11", limit: 9 }],
      plan: { key: "2026-11", limit: 10 },
    });
    expect(reserveAskOf("p", "r", terms({ budgets: { daily: 5 }, action: "downgrade" }), 3, at).budgets).toEqual([{ period: "daily", key: "2026-11-26", limit: 5 }]);
    const warn = reserveAskOf("p", "r", terms({ credit: "limit", creditLimit: 7, budgets: { daily: 5 }, action: "warn" }), 3, at);
    expect(warn).toEqual({ projectId: "p", requestId: "r", amount: 3, allowance: 7, now: at });
    expect(reserveAskOf("p", "r", terms({}), 3, at).allowance).toBeNull();
  });
});
