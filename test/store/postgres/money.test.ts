// The money store contract against PostgreSQL (src/store/postgres/money.ts) on a real throwaway
// cluster, migrated by the runner; every test on projects of its own.
import { describe, expect, test } from "bun:test";
import { openPostgres, type Postgres, StoreUnavailable } from "../../../src/store/postgres/connect.ts";
import { postgresMoneyStore } from "../../../src/store/postgres/money.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { moneyBudgetContract } from "../contract/money-budgets.contract.ts";
import { type LedgerRow, type MoneyHarness, moneyContract } from "../contract/money.contract.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 10, timeoutMs: 10_000 }, (s, p) => {
  service = s;
  pg = p;
});

const make = async (): Promise<MoneyHarness> => ({
  store: postgresMoneyStore(pg),
  async ledger(projectId: string): Promise<LedgerRow[]> {
    const rows: Array<{ kind: string; request_id: string | null; amount: string }> =
      await pg.sql`SELECT kind, request_id, amount FROM ledger WHERE project_id = ${projectId} ORDER BY seq`;
    return rows.map((r) => ({ kind: r.kind, requestId: r.request_id, amount: Number(r.amount) }));
  },
});

moneyContract("postgres", make);
moneyBudgetContract("postgres", make);

describe("postgres money store", () => {
  test("three instances (three pools) on one database: 500 requests round-robin on a balance covering 100 serve exactly 100", async () => {
    const pools = [0, 1, 2].map(() => openPostgres(service.url, { max: 4, timeoutMs: 10_000 }));
    try {
      const stores = pools.map((p) => postgresMoneyStore(p));
      const projectId = `prj_three_${process.pid}`;
      await stores[0]!.credit(projectId, 100, null, 0);
      const served = await Promise.all(Array.from({ length: 500 }, async (_, i) => {
        const store = stores[i % 3]!;
        const r = await store.reserve({ projectId, requestId: `r${i}`, amount: 1, allowance: 0, now: 1 });
        if (!r.ok) return false;
        // Settled through another instance than the one that reserved.
        expect(await stores[(i + 1) % 3]!.settle({ projectId, requestId: `r${i}`, charge: 1, allowance: 0, model: null, inputTokens: 1, outputTokens: 1, cost: 1, byok: false, now: 2 })).toEqual({ ok: true, charged: 1 });
        return true;
      }));
      expect(served.filter(Boolean)).toHaveLength(100);
      const [row] = await pg.sql`SELECT balance::int AS balance, reserved::int AS reserved,
        (SELECT count(*)::int FROM ledger WHERE project_id = ${projectId} AND kind = 'charge') AS charges FROM accounts WHERE project_id = ${projectId}`;
      expect(row).toEqual({ balance: 0, reserved: 0, charges: 100 });
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  test("holds left open by an instance that died are released by age, budget and plan places with them; a late settle changes nothing", async () => {
    const dead = openPostgres(service.url, { max: 2, timeoutMs: 10_000 });
    const projectId = `prj_stale_${process.pid}`;
    const budgets = [{ period: "daily" as const, key: "2026-11-26", limit: 10 }];
    const plan = { key: "2026-11", limit: 2 };
    const ask = (requestId: string, now: number) => ({ projectId, requestId, amount: 6, allowance: 0, budgets, plan, now });
    const live = postgresMoneyStore(pg);
    await live.credit(projectId, 100, null, 0);
    expect(await postgresMoneyStore(dead).reserve(ask("r-dead", 1_000))).toEqual({ ok: true, replayed: false });
    await dead.close();
    // The dead instance's hold still blocks the budget.
    expect(await live.reserve(ask("r-new", 5_000))).toMatchObject({ ok: false, code: "budget_exceeded" });
    expect(await live.releaseStale(2_000, 6_000)).toBe(1);
    expect(await live.releaseStale(2_000, 6_000)).toBe(0);
    expect(await live.figures(projectId)).toEqual({ balance: 100, reserved: 0 });
    expect(await live.reserve(ask("r-new", 5_000))).toEqual({ ok: true, replayed: false });
    expect(await live.settle({ projectId, requestId: "r-dead", charge: 6, allowance: 0, model: null, inputTokens: 1, outputTokens: 1, cost: 5, byok: false, now: 7_000 })).toEqual({ ok: false });
    const [row] = await pg.sql`SELECT reserved::int AS reserved, inflight::int AS inflight FROM spend_counters WHERE project_id = ${projectId} AND period = 'monthly'`;
    expect(row).toEqual({ reserved: 0, inflight: 1 });
  });

  test("PostgreSQL gone: each call fails as StoreUnavailable within its bound, and nothing was held", async () => {
    const down = openPostgres(service.url.replace(/:\d+\//, ":1/"), { timeoutMs: 500 });
    try {
      const store = postgresMoneyStore(down);
      await expect(store.reserve({ projectId: "p", requestId: "r", amount: 1, allowance: 0, now: 0 })).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(store.figures("p")).rejects.toBeInstanceOf(StoreUnavailable);
    } finally {
      await down.close();
    }
  });
});
