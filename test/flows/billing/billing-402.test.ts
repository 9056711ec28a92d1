// Every 402 of docs/api.md "Errors" through the real pipeline (docs/billing.md): insufficient_credits
// (prepaid, and postpaid over its credit_limit), budget_exceeded (daily and monthly), plan_limit
// (Free after 10,000 requests this month), and the test-mode errors on demand (docs/billing.md "Test mode").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { boundMessageTokens } from "../../../src/analysis/tokens.ts";
import { monthStart } from "../../../src/billing/periods.ts";
import { post } from "../../helpers/test-gw.ts";
import {
  addCredits, answerWith, billedProject, chat, ledgerOf, startBillingGw, usd, user, worstChargeNano,
  type ScriptedUpstream, type TestGw,
} from "./billing-helpers.ts";

let gw: TestGw;
let upstream: ScriptedUpstream;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, upstream, stop } = await startBillingGw()));
afterAll(() => stop());

const MAX_TOKENS = 200;
const messages = user("Draft a two-line reply to a customer asking about delivery times.");
const worst = worstChargeNano(messages, MAX_TOKENS);
const ask = (key: string) => chat(gw, key, { messages, max_tokens: MAX_TOKENS });
/** The next answers use their whole reservation. */
const fullAnswers = (n = 1) => upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS) }, n);

async function expect402(res: Response, code: string): Promise<string> {
  expect(res.status).toBe(402);
  const { error } = (await res.json()) as { error: { code: string; type: string; category: string; message: string } };
  expect(error).toMatchObject({ code, type: "billing_error", category: code.toUpperCase() });
  return error.message;
}

describe('402 insufficient_credits (docs/billing.md "Prepaid credit, postpaid credit limit")', () => {
  test("prepaid with no balance: refused before any provider call", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    const before = upstream.callCount();
    expect(await expect402(await ask(p.key), "insufficient_credits")).toContain("prepaid balance");
    expect(upstream.callCount()).toBe(before);
  });

  test("prepaid: served while the balance covers the reservation, then refused; credits reopen it", async () => {
    const p = await billedProject(gw, { billing: { mode: "prepaid" } });
    await addCredits(gw, p.id, usd(worst * 1.5));
    fullAnswers(2);
    expect((await ask(p.key)).status).toBe(200);
    await expect402(await ask(p.key), "insufficient_credits");
    await addCredits(gw, p.id, usd(worst));
    expect((await ask(p.key)).status).toBe(200);
  });

  test("postpaid with a credit_limit: the same against the limit; a payment (credit) makes room", async () => {
    const p = await billedProject(gw, { billing: { mode: "postpaid", credit_limit: usd(worst * 1.5) } });
    fullAnswers(2);
    expect((await ask(p.key)).status).toBe(200);
    expect(await expect402(await ask(p.key), "insufficient_credits")).toContain("credit limit");
    expect(gw.deps.billing.account(p.id).balance).toBe(-worst);
    await addCredits(gw, p.id, usd(worst));
    expect((await ask(p.key)).status).toBe(200);
  });

  test("postpaid without a limit is never refused and still charged", async () => {
    const p = await billedProject(gw);
    fullAnswers(3);
    for (let i = 0; i < 3; i++) expect((await ask(p.key)).status).toBe(200);
    const charges = (await ledgerOf(gw, p.id)).filter((r) => r.kind === "charge");
    expect(charges.map((r) => r.amount)).toEqual([worst, worst, worst]);
  });
});

describe('402 budget_exceeded, budget_action block, the default (docs/billing.md "Budgets")', () => {
  test("daily: the second request would pass the day's budget", async () => {
    const p = await billedProject(gw, { policy: { budgets: { daily: usd(worst * 1.5) } } });
    fullAnswers(1);
    expect((await ask(p.key)).status).toBe(200);
    expect(await expect402(await ask(p.key), "budget_exceeded")).toContain("daily budget");
  });

  test("monthly: spending earlier this month counts (read from the ledger when the account loads)", async () => {
    const p = await billedProject(gw, { policy: { budgets: { monthly: usd(worst * 10), daily: 100 } } });
    // Earlier this month: 9.5 reservations' worth already charged.
    gw.deps.repos.ledger.appendMany([{ projectId: p.id, kind: "charge", amount: Math.round(worst * 9.5), model: "openai/gpt-4o-mini", createdAt: monthStart(Date.now()) }]);
    expect(await expect402(await ask(p.key), "budget_exceeded")).toContain("monthly budget");
  });

  test("an explicit budget of 0 blocks everything", async () => {
    const p = await billedProject(gw, { policy: { budgets: { daily: 0 }, budget_action: "block" } });
    await expect402(await ask(p.key), "budget_exceeded");
  });
});

describe('402 plan_limit, Free: 10,000 requests a month (docs/billing.md "Plans")', () => {
  test("the 10,000th request of the month is served, the next refused; failures and test keys do not count", async () => {
    const p = await billedProject(gw, { plan: "free" });
    // 9,999 answered requests this month, seeded in the ledger rather than sent.
    const now = Date.now();
    gw.deps.repos.ledger.appendMany(Array.from({ length: 9_999 }, (_, i) => ({
      projectId: p.id, kind: "charge" as const, amount: 1, model: "openai/gpt-4o-mini", requestId: `req_seed${i}`, createdAt: now,
    })));
    // A failed request gives its place back.
    upstream.script({ status: 500 }, 2);
    expect((await ask(p.key)).status).toBe(502);
    fullAnswers(1);
    expect((await ask(p.key)).status).toBe(200);
    expect(await expect402(await ask(p.key), "plan_limit")).toContain("10,000");
    expect(gw.deps.billing.account(p.id).month.requests).toBe(10_000);
    // Test keys are never counted or refused.
    const testKey = gw.key({ mode: "test", projectId: p.id });
    expect((await post(`${gw.url}/chat/completions`, testKey, { model: "gw-auto", messages }, { "x-gw-cache": "off" })).status).toBe(200);
  });

  test("pro and business have no allowance", async () => {
    const p = await billedProject(gw, { plan: "pro" });
    expect(gw.deps.billing.account(p.id).month.requests).toBe(0);
    fullAnswers(1);
    expect((await ask(p.key)).status).toBe(200);
  });
});

describe('the 402s on demand in test mode still answer (docs/billing.md "Test mode")', () => {
  for (const code of ["insufficient_credits", "budget_exceeded", "plan_limit"]) {
    test(`gw-test:${code}`, async () => {
      const res = await post(`${gw.url}/chat/completions`, gw.testKey, { model: `gw-test:${code}`, messages });
      await expect402(res, code);
    });
  }
});
