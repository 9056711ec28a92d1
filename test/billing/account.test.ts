// The in-memory account and the charge rule (docs/billing.md "Units", "Never overspent under concurrency", "Budgets"):
// admission order, holds, settlement, releases, UTC period roll-over, and the money helpers.
import { describe, expect, test } from "bun:test";
import { Account, type Terms } from "../../src/billing/account.ts";
import { chargeNano, formatUsd, toNano, toUsd } from "../../src/billing/money.ts";
import { monthRange } from "../../src/billing/periods.ts";
import { termsOf } from "../../src/billing/terms.ts";
import type { Project } from "../../src/store/repos/projects.ts";

const NOW = Date.UTC(2026, 10, 22, 12);
const fresh = (balance = 0) => new Account({ balance, daySpent: 0, monthSpent: 0, monthRequests: 0, creditSeq: 0 }, NOW);
const terms = (t: Partial<Terms>): Terms => ({ credit: null, creditLimit: 0, budgets: {}, action: "block", monthlyRequests: null, ...t });

describe("money", () => {
  test("charge = cost x 1.10 on operator keys, nothing on BYOK (the provider bills the project), in integer nano-USD", () => {
    expect(chargeNano(0.00045, false)).toBe(495_000);
    expect(chargeNano(0.00045, true)).toBe(0);
    expect(chargeNano(0, false)).toBe(0);
    expect(toNano(12.5)).toBe(12_500_000_000);
    expect(toUsd(495_000)).toBe(0.000495);
  });

  test("formatUsd writes plain decimals", () => {
    expect(formatUsd(100)).toBe("$0.0000001");
    expect(formatUsd(12_500_000_000)).toBe("$12.5");
    expect(formatUsd(-495_000)).toBe("-$0.000495");
    expect(formatUsd(0)).toBe("$0");
  });

  test("months are UTC calendar months", () => {
    expect(monthRange("2026-12")).toEqual({ start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
    expect(monthRange("2026-13")).toBeNull();
    expect(monthRange("26-01")).toBeNull();
  });
});

describe("Account.admit and hold", () => {
  test("prepaid: balance less open holds must cover the reservation", () => {
    const a = fresh(1_000);
    const t = terms({ credit: "prepaid" });
    expect(a.admit(t, 600, NOW).ok).toBe(true);
    const h = a.hold("p", "r1", 600, false);
    expect(a.admit(t, 400, NOW).ok).toBe(true);
    const refused = a.admit(t, 401, NOW);
    expect(refused).toMatchObject({ ok: false, code: "insufficient_credits" });
    // Settled below the hold: the rest comes back.
    a.settle(h, 250, true, NOW);
    expect(a).toMatchObject({ balance: 750, reserved: 0 });
    expect(a.admit(t, 750, NOW).ok).toBe(true);
  });

  test("postpaid with a limit: balance + limit less holds", () => {
    const a = fresh(-300);
    expect(a.admit(terms({ credit: "limit", creditLimit: 1_000 }), 700, NOW).ok).toBe(true);
    expect(a.admit(terms({ credit: "limit", creditLimit: 1_000 }), 701, NOW).ok).toBe(false);
    expect(a.admit(terms({}), 1e12, NOW).ok).toBe(true);
  });

  test("plan allowance first, then budgets, then credit; holds count towards each", () => {
    const a = fresh(0);
    const all = terms({ credit: "prepaid", budgets: { daily: 10 }, monthlyRequests: 1 });
    expect(a.admit(all, 50, NOW)).toMatchObject({ ok: false, code: "budget_exceeded" });
    const free = terms({ monthlyRequests: 2 });
    const h1 = a.hold("p", "r1", 0, true);
    a.hold("p", "r2", 0, true);
    expect(a.admit(free, 0, NOW)).toMatchObject({ ok: false, code: "plan_limit" });
    a.release(h1);
    expect(a.admit(free, 0, NOW).ok).toBe(true);
  });

  test("budgets: spent + held + this request; warn admits and reports the overrun", () => {
    const a = fresh(0);
    a.settle(undefined, 60, true, NOW);
    a.hold("p", "r", 30, false);
    const block = terms({ budgets: { daily: 100, monthly: 1_000 } });
    expect(a.admit(block, 10, NOW).ok).toBe(true);
    const over = a.admit(block, 11, NOW);
    expect(over).toMatchObject({ ok: false, code: "budget_exceeded", overruns: [{ period: "daily", spent: 60, reserved: 30, budget: 100 }] });
    expect(a.admit({ ...block, action: "warn" }, 11, NOW)).toMatchObject({ ok: true, overruns: [{ period: "daily" }] });
    expect(a.budgetRoom(block, NOW)).toEqual({ period: "daily", remaining: 10 });
  });

  test("a new UTC day starts with nothing spent today; a new month resets the month", () => {
    const a = fresh(0);
    a.settle(undefined, 80, true, NOW);
    const t = terms({ budgets: { daily: 100, monthly: 150 } });
    expect(a.admit(t, 30, NOW).ok).toBe(false);
    const tomorrow = NOW + 24 * 3600_000;
    expect(a.admit(t, 30, tomorrow).ok).toBe(true);
    expect(a.day.spent).toBe(0);
    expect(a.month.spent).toBe(80);
    expect(a.admit(t, 80, tomorrow).ok).toBe(false);
    expect(a.admit(t, 80, Date.UTC(2026, 11, 1)).ok).toBe(true);
    expect(a.month).toMatchObject({ key: "2026-12", spent: 0, requests: 0 });
  });

  test("the day rolls at the first millisecond of the next UTC day, not before; a clock set back rolls too", () => {
    const dayStartMs = Date.UTC(2026, 10, 30);
    const a = fresh(0);
    a.settle(undefined, 80, true, dayStartMs + 1000);
    a.roll(dayStartMs + 86_400_000 - 1);
    expect(a.day).toMatchObject({ key: "2026-11-30", spent: 80 });
    a.roll(dayStartMs + 86_400_000);
    expect(a.day).toMatchObject({ key: "2026-12-01", spent: 0 });
    expect(a.month).toMatchObject({ key: "2026-12", spent: 0 });
    a.settle(undefined, 5, true, dayStartMs + 86_400_000 + 1);
    a.roll(dayStartMs + 5);
    expect(a.day).toMatchObject({ key: "2026-11-30", spent: 0 });
    expect(a.month).toMatchObject({ key: "2026-11", spent: 0 });
  });
});

describe("termsOf", () => {
  const project = (p: Partial<Project>): Project => ({
    id: "prj_x", name: "x", plan: "pro", billingMode: "postpaid", balance: 0, creditLimit: null, policy: {}, createdAt: 0, ...p,
  });

  test("postpaid without limit, no budgets, not free: nothing to check", () => {
    expect(termsOf(project({}))).toBeNull();
  });

  test("each of prepaid, a credit limit, a budget or the Free plan needs an account", () => {
    expect(termsOf(project({ billingMode: "prepaid" }))).toMatchObject({ credit: "prepaid", action: "block" });
    expect(termsOf(project({ creditLimit: 2.5 }))).toMatchObject({ credit: "limit", creditLimit: 2_500_000_000 });
    expect(termsOf(project({ policy: { budgets: { monthly: 3 }, budget_action: "warn" } }))).toMatchObject({ budgets: { monthly: 3e9 }, action: "warn" });
    expect(termsOf(project({ plan: "free" }))).toMatchObject({ monthlyRequests: 10_000 });
  });
});
