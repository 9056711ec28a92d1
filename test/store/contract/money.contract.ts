// The money store's contract (src/store/money-store.ts), run against SQLite (today's Billing) and
// PostgreSQL: never overspent under concurrency, one ledger row per served request, every step once.
import { describe, expect, test } from "bun:test";
import type { MoneyStore, SettleAsk } from "../../../src/store/money-store.ts";

export interface LedgerRow {
  kind: string;
  requestId: string | null;
  amount: number;
}

export interface MoneyHarness {
  store: MoneyStore;
  /** Every committed ledger row of the project (waits for queued writes first). */
  ledger(projectId: string): Promise<LedgerRow[]>;
}

const NOW = Date.UTC(2026, 10, 26, 12);
const UNIT = 1_000_000; // $0.001 in nano-USD
let projects = 0;
const newProject = () => `prj_money_${process.pid}_${++projects}_${Math.random().toString(36).slice(2, 8)}`;

const settleAsk = (projectId: string, requestId: string, charge: number, allowance: number | null = 0): SettleAsk => ({
  projectId, requestId, charge, allowance, model: "gpt-x", inputTokens: 10, outputTokens: 5, cost: Math.round(charge / 1.1), byok: false, now: NOW + 1,
});

const count = (rows: LedgerRow[], kind: string) => rows.filter((r) => r.kind === kind).length;

export function moneyContract(name: string, make: () => Promise<MoneyHarness>): void {
  describe(`${name}: money store contract`, () => {
    test("500 concurrent requests on a balance covering 100 serve exactly 100; the balance never goes below zero; one charge row per served request", async () => {
      const { store, ledger } = await make();
      const p = newProject();
      expect(await store.credit(p, 100 * UNIT, "top-up", NOW)).toBe(100 * UNIT);
      let done = false;
      let lowest = Infinity;
      // Watches the figures while the requests run: neither the balance nor what is left to reserve dips below zero.
      const watch = (async () => {
        while (!done) {
          const f = await store.figures(p);
          lowest = Math.min(lowest, f.balance, f.balance - f.reserved);
          await Promise.resolve();
        }
      })();
      const served = await Promise.all(Array.from({ length: 500 }, async (_, i) => {
        const id = `req_${i}`;
        const r = await store.reserve({ projectId: p, requestId: id, amount: UNIT, allowance: 0, now: NOW });
        if (!r.ok) return expect(r.code).toBe("insufficient_credits"), null;
        const s = await store.settle(settleAsk(p, id, UNIT));
        expect(s).toEqual({ ok: true, charged: UNIT });
        return id;
      }));
      done = true;
      await watch;
      const ids = served.filter((id) => id !== null);
      expect(ids).toHaveLength(100);
      expect(lowest).toBeGreaterThanOrEqual(0);
      expect(await store.figures(p)).toEqual({ balance: 0, reserved: 0 });
      const rows = await ledger(p);
      const charges = rows.filter((r) => r.kind === "charge");
      expect(charges.map((r) => r.requestId).sort()).toEqual([...ids].sort());
      expect(charges.reduce((s, r) => s + r.amount, 0)).toBe(100 * UNIT);
      expect(count(rows, "hold")).toBe(100);
      expect(count(rows, "credit")).toBe(1);
      expect(rows).toHaveLength(201);
      const refused = await store.reserve({ projectId: p, requestId: "req_more", amount: 1, allowance: 0, now: NOW });
      expect(refused).toEqual({ ok: false, code: "insufficient_credits", balance: 0, reserved: 0 });
    });

    test("settle is once per request id: a replay, even a concurrent one, changes nothing", async () => {
      const { store, ledger } = await make();
      const p = newProject();
      await store.credit(p, 10 * UNIT, null, NOW);
      expect(await store.reserve({ projectId: p, requestId: "r1", amount: 3 * UNIT, allowance: 0, now: NOW })).toEqual({ ok: true, replayed: false });
      const both = await Promise.all([store.settle(settleAsk(p, "r1", 2 * UNIT)), store.settle(settleAsk(p, "r1", 2 * UNIT))]);
      expect(both.filter((s) => s.ok)).toEqual([{ ok: true, charged: 2 * UNIT }]);
      expect(await store.settle(settleAsk(p, "r1", 2 * UNIT))).toEqual({ ok: false });
      expect(await store.release(p, "r1", NOW + 2)).toBe(false);
      expect(await store.figures(p)).toEqual({ balance: 8 * UNIT, reserved: 0 });
      const rows = await ledger(p);
      expect([count(rows, "hold"), count(rows, "charge"), count(rows, "release")]).toEqual([1, 1, 0]);
    });

    test("release is once per request id, and a request released is never charged afterwards", async () => {
      const { store, ledger } = await make();
      const p = newProject();
      await store.credit(p, 10 * UNIT, null, NOW);
      await store.reserve({ projectId: p, requestId: "r1", amount: 4 * UNIT, allowance: 0, now: NOW });
      expect(await store.figures(p)).toEqual({ balance: 10 * UNIT, reserved: 4 * UNIT });
      expect(await Promise.all([store.release(p, "r1", NOW + 1), store.release(p, "r1", NOW + 1)])).toContain(false);
      expect(await store.release(p, "r1", NOW + 1)).toBe(false);
      expect(await store.settle(settleAsk(p, "r1", UNIT))).toEqual({ ok: false });
      expect(await store.figures(p)).toEqual({ balance: 10 * UNIT, reserved: 0 });
      const rows = await ledger(p);
      expect(rows.filter((r) => r.kind === "release")).toEqual([{ kind: "release", requestId: "r1", amount: 4 * UNIT }]);
      expect(count(rows, "charge")).toBe(0);
    });

    test("a replayed reservation holds once", async () => {
      const { store, ledger } = await make();
      const p = newProject();
      await store.credit(p, 10 * UNIT, null, NOW);
      const ask = { projectId: p, requestId: "r1", amount: 6 * UNIT, allowance: 0, now: NOW };
      const both = await Promise.all([store.reserve(ask), store.reserve(ask)]);
      expect(both.map((r) => (r.ok ? r.replayed : "refused")).sort()).toEqual([false, true]);
      expect(await store.figures(p)).toEqual({ balance: 10 * UNIT, reserved: 6 * UNIT });
      expect(count(await ledger(p), "hold")).toBe(1);
    });

    test("a charge past the hold and the unreserved credit is cut to what they cover; a cache answer charges nothing", async () => {
      const { store, ledger } = await make();
      const p = newProject();
      await store.credit(p, 10 * UNIT, null, NOW);
      await store.reserve({ projectId: p, requestId: "r1", amount: 3 * UNIT, allowance: 0, now: NOW });
      await store.reserve({ projectId: p, requestId: "r2", amount: 5 * UNIT, allowance: 0, now: NOW });
      // r1's hold (3) and the unreserved 2: a fallback to a dearer model cannot overdraw.
      expect(await store.settle(settleAsk(p, "r1", 9 * UNIT))).toEqual({ ok: true, charged: 5 * UNIT });
      expect(await store.settle({ ...settleAsk(p, "r2", 4 * UNIT), cacheSaved: 4 * UNIT })).toEqual({ ok: true, charged: 0 });
      expect(await store.figures(p)).toEqual({ balance: 5 * UNIT, reserved: 0 });
      const rows = await ledger(p);
      expect(rows.filter((r) => r.kind === "cache")).toEqual([{ kind: "cache", requestId: "r2", amount: 0 }]);
    });

    test("a credit limit lets a postpaid project reserve past zero, up to the limit; no credit check holds anything", async () => {
      const { store } = await make();
      const p = newProject();
      const limit = 5 * UNIT;
      expect(await store.reserve({ projectId: p, requestId: "r1", amount: 3 * UNIT, allowance: limit, now: NOW })).toEqual({ ok: true, replayed: false });
      expect(await store.reserve({ projectId: p, requestId: "r2", amount: 3 * UNIT, allowance: limit, now: NOW })).toMatchObject({ ok: false, code: "insufficient_credits" });
      expect(await store.settle(settleAsk(p, "r1", 4 * UNIT, limit))).toEqual({ ok: true, charged: 4 * UNIT });
      expect(await store.figures(p)).toEqual({ balance: -4 * UNIT, reserved: 0 });
      const q = newProject();
      expect(await store.reserve({ projectId: q, requestId: "r1", amount: 7 * UNIT, allowance: null, now: NOW })).toEqual({ ok: true, replayed: false });
      expect(await store.settle(settleAsk(q, "r1", 2 * UNIT, null))).toEqual({ ok: true, charged: 2 * UNIT });
      expect(await store.figures(q)).toEqual({ balance: -2 * UNIT, reserved: 0 });
    });
  });
}
