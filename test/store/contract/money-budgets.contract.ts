// The money store's budget and plan contract (src/store/money-store.ts), run against SQLite and
// PostgreSQL: a daily `block` budget and the plan's monthly allowance hold under concurrency.
import { describe, expect, test } from "bun:test";
import { dayKey, monthKey } from "../../../src/billing/periods.ts";
import type { PeriodKey, ReserveAsk, SettleAsk } from "../../../src/store/money-store.ts";
import type { MoneyHarness } from "./money.contract.ts";

const NOW = Date.UTC(2026, 10, 26, 12);
const UNIT = 1_000_000;
const PERIODS: PeriodKey[] = [{ period: "daily", key: dayKey(NOW) }, { period: "monthly", key: monthKey(NOW) }];
let projects = 0;
const newProject = () => `prj_budget_${process.pid}_${++projects}_${Math.random().toString(36).slice(2, 8)}`;

const settleAsk = (projectId: string, requestId: string, charge: number): SettleAsk => ({
  projectId, requestId, charge, allowance: null, model: "gpt-x", inputTokens: 1, outputTokens: 1, cost: charge, byok: false, periods: PERIODS, now: NOW + 1,
});

export function moneyBudgetContract(name: string, make: () => Promise<MoneyHarness>): void {
  describe(`${name}: money store budgets and plan`, () => {
    test("a daily block budget covering 100 requests: of 500 concurrent, exactly 100 are served and the charges never pass it", async () => {
      const { store, ledger } = await make();
      const p = newProject();
      const budget = 100 * UNIT;
      const ask = (i: number): ReserveAsk => ({ projectId: p, requestId: `req_${i}`, amount: UNIT, allowance: null, budgets: [{ period: "daily", key: dayKey(NOW), limit: budget }], now: NOW });
      const served = await Promise.all(Array.from({ length: 500 }, async (_, i) => {
        const r = await store.reserve(ask(i));
        if (!r.ok) return expect(r.code).toBe("budget_exceeded"), false;
        expect(await store.settle(settleAsk(p, `req_${i}`, UNIT))).toEqual({ ok: true, charged: UNIT });
        return true;
      }));
      expect(served.filter(Boolean)).toHaveLength(100);
      const charges = (await ledger(p)).filter((r) => r.kind === "charge");
      expect(charges).toHaveLength(100);
      expect(charges.reduce((s, r) => s + r.amount, 0)).toBe(budget);
      expect(await store.reserve(ask(500))).toEqual({ ok: false, code: "budget_exceeded", period: "daily", spent: budget, reserved: 0 });
      // The next day starts from nothing spent.
      const tomorrow = NOW + 86_400_000;
      expect(await store.reserve({ ...ask(501), budgets: [{ period: "daily", key: dayKey(tomorrow), limit: budget }], now: tomorrow })).toEqual({ ok: true, replayed: false });
    });

    test("a released reservation gives its budget back", async () => {
      const { store } = await make();
      const p = newProject();
      const budgets = [{ period: "daily" as const, key: dayKey(NOW), limit: 100 * UNIT }];
      const ask = (id: string, amount: number): ReserveAsk => ({ projectId: p, requestId: id, amount, allowance: null, budgets, now: NOW });
      expect(await store.reserve(ask("r1", 60 * UNIT))).toEqual({ ok: true, replayed: false });
      expect(await store.reserve(ask("r2", 50 * UNIT))).toEqual({ ok: false, code: "budget_exceeded", period: "daily", spent: 0, reserved: 60 * UNIT });
      expect(await store.release(p, "r1", NOW + 1)).toBe(true);
      expect(await store.reserve(ask("r3", 50 * UNIT))).toEqual({ ok: true, replayed: false });
    });

    test("the plan's monthly allowance: of 200 concurrent requests exactly 30 are answered; a released place is free again", async () => {
      const { store } = await make();
      const p = newProject();
      const plan = { key: monthKey(NOW), limit: 30 };
      const ask = (id: string): ReserveAsk => ({ projectId: p, requestId: id, amount: 10, allowance: null, plan, now: NOW });
      const served = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
        const r = await store.reserve(ask(`req_${i}`));
        if (!r.ok) return expect(r).toEqual({ ok: false, code: "plan_limit" }), false;
        // Every fifth is released (a failed request) and tried once more: its place comes back.
        if (i % 5 === 0) {
          expect(await store.release(p, `req_${i}`, NOW + 1)).toBe(true);
          const again = await store.reserve(ask(`req_${i}_again`));
          if (!again.ok) return false;
          expect(await store.settle(settleAsk(p, `req_${i}_again`, 10))).toEqual({ ok: true, charged: 10 });
          return true;
        }
        expect(await store.settle(settleAsk(p, `req_${i}`, 10))).toEqual({ ok: true, charged: 10 });
        return true;
      }));
      expect(served.filter(Boolean)).toHaveLength(30);
      expect(await store.reserve(ask("one_more"))).toEqual({ ok: false, code: "plan_limit" });
    });
  });
}
