// Done-when of issue 9 (docs/billing.md "Never overspent under concurrency"): 200 simultaneous requests against a
// prepaid balance, and separately a daily budget with action block, that cover exactly 50
// worst-case reservations serve 50; the rest answer 402; the ledger balances to the nano-dollar.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import {
  addCredits, answerWith, balanceUsd, billedProject, chat, errorCode, ledgerOf, startBillingGw, sumOf, usd, user,
  worstChargeNano, type ScriptedUpstream, type TestGw,
} from "./billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw()));
afterAll(() => stop());

const MAX_TOKENS = 300;
const messages = user("Summarise the quarterly numbers for the board in three short bullet points.");
/** Each answer uses its whole reservation, so no settle frees room for a 51st request. */
const worst = worstChargeNano(messages, MAX_TOKENS);

async function fire(key: string, n: number): Promise<{ served: number; calls: number; refused: Map<string, number> }> {
  // A slow upstream keeps every admitted request in flight while the others arrive.
  upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS), delayMs: 250 }, n);
  const results = await Promise.all(Array.from({ length: n }, () => chat(gw, key, { messages, max_tokens: MAX_TOKENS })));
  let served = 0;
  const refused = new Map<string, number>();
  for (const res of results) {
    if (res.status === 200) served++;
    else {
      expect(res.status).toBe(402);
      const code = await errorCode(res);
      refused.set(code, (refused.get(code) ?? 0) + 1);
    }
  }
  const calls = upstream.callCount();
  upstream.reset();
  return { served, calls, refused };
}

describe("docs/billing.md: reservations under concurrency", () => {
  test("prepaid: a balance of 50 reservations serves 50 of 200; the ledger balances exactly", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, usd(50 * worst));
    const { served, calls, refused } = await fire(p.key, 200);
    expect(served).toBe(50);
    expect(refused).toEqual(new Map([["insufficient_credits", 150]]));
    // A refused request never reaches the provider.
    expect(calls).toBe(50);

    const rows = await ledgerOf(gw, p.id);
    const credits = sumOf(rows, "credit");
    const charges = sumOf(rows, "charge");
    expect(credits).toBe(50 * worst);
    expect(charges).toBe(50 * worst);
    // credits - settled charges = balance, in the account, the admin API and the ledger's own sum.
    const account = gw.deps.billing.account(p.id);
    expect(account.balance).toBe(credits - charges);
    expect(account.balance).toBe(0);
    expect(await balanceUsd(gw, p.id)).toBe(0);
    expect(gw.deps.repos.ledger.balanceOf(p.id)).toBe(0);
    // No open reservations: every hold closed by its charge, none left in memory or in the table.
    expect(account.reserved).toBe(0);
    expect(rows.filter((r) => r.kind === "hold")).toHaveLength(50);
    expect(rows.filter((r) => r.kind === "release")).toHaveLength(0);
    expect(gw.deps.db.query("SELECT * FROM ledger_open_holds WHERE project_id = ?").all(p.id)).toHaveLength(0);
  });

  test("daily budget with action block: 50 of 200 served, the rest 402 budget_exceeded", async () => {
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(50 * worst) }, budget_action: "block" } });
    const { served, refused } = await fire(p.key, 200);
    expect(served).toBe(50);
    expect(refused).toEqual(new Map([["budget_exceeded", 150]]));
    const rows = await ledgerOf(gw, p.id);
    const account = gw.deps.billing.account(p.id);
    expect(account.day.spent).toBe(50 * worst);
    expect(sumOf(rows, "charge")).toBe(50 * worst);
    // Postpaid without a credit limit: the balance goes negative by what was charged.
    expect(account.balance).toBe(-50 * worst);
    expect(account.reserved).toBe(0);
    // The first refusal of the day is a budget event.
    const events = gw.deps.db.query<{ period: string; action: string }, [string]>("SELECT period, action FROM budget_events WHERE project_id = ?").all(p.id);
    expect(events).toEqual([{ period: "daily", action: "block" }]);
  });
});
