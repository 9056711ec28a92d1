// The money functions of migration 006 roll back everything a refused or replayed step wrote (an
// exception block where the client's transaction threw), on a real throwaway cluster.
import { describe, expect, test } from "bun:test";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresMoneyStore } from "../../../src/store/postgres/money.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 10_000 }, (s, p) => {
  service = s;
  pg = p;
});

const counters = (projectId: string) =>
  pg.sql`SELECT period, period_key, spent::int AS spent, reserved::int AS reserved, requests::int AS requests, inflight::int AS inflight
    FROM spend_counters WHERE project_id = ${projectId} ORDER BY period, period_key`;
const rowsOf = async (projectId: string) => {
  const [row] = await pg.sql`SELECT (SELECT count(*)::int FROM ledger WHERE project_id = ${projectId} AND kind = 'hold') AS holds,
    (SELECT count(*)::int FROM ledger_open_holds WHERE project_id = ${projectId}) AS open`;
  return row;
};

describe("postgres money functions", () => {
  test("a budget refused after another passed: nothing of the reservation stays, and the same request id may ask again for less", async () => {
    const money = postgresMoneyStore(pg);
    const p = "prj_fn_budgets";
    await money.credit(p, 1_000, null, 0);
    const budgets = [{ period: "daily" as const, key: "2026-11-26", limit: 500 }, { period: "monthly" as const, key: "2026-11", limit: 100 }];
    const ask = (amount: number) => ({ projectId: p, requestId: "r1", amount, allowance: 0, budgets, plan: { key: "2026-11", limit: 10 }, now: 1 });
    expect(await money.reserve(ask(200))).toEqual({ ok: false, code: "budget_exceeded", period: "monthly", spent: 0, reserved: 0 });
    // The daily counter passed before the monthly one refused: its reservation was rolled back too.
    expect(await counters(p)).toEqual([]);
    expect(await rowsOf(p)).toEqual({ holds: 0, open: 0 });
    expect(await money.figures(p)).toEqual({ balance: 1_000, reserved: 0 });
    expect(await money.reserve(ask(80))).toEqual({ ok: true, replayed: false });
    expect(await counters(p)).toEqual([
      { period: "daily", period_key: "2026-11-26", spent: 0, reserved: 80, requests: 0, inflight: 0 },
      { period: "monthly", period_key: "2026-11", spent: 0, reserved: 80, requests: 0, inflight: 1 },
    ]);
    expect(await money.settle({ projectId: p, requestId: "r1", charge: 70, allowance: 0, model: "m", inputTokens: 1, outputTokens: 1, cost: 60, byok: false,
      periods: [{ period: "daily", key: "2026-11-26" }, { period: "monthly", key: "2026-11" }], now: 2 })).toEqual({ ok: true, charged: 70 });
    expect(await counters(p)).toEqual([
      { period: "daily", period_key: "2026-11-26", spent: 70, reserved: 0, requests: 1, inflight: 0 },
      { period: "monthly", period_key: "2026-11", spent: 70, reserved: 0, requests: 1, inflight: 0 },
    ]);
    expect(await money.figures(p)).toEqual({ balance: 930, reserved: 0 });
  });

  test("a settle or release whose closing row exists already leaves the open hold as it was", async () => {
    const money = postgresMoneyStore(pg);
    const p = "prj_fn_replay";
    await money.credit(p, 1_000, null, 0);
    expect(await money.reserve({ projectId: p, requestId: "r1", amount: 300, allowance: 0, now: 1 })).toEqual({ ok: true, replayed: false });
    // A closing row written by hand: the step deletes the hold, finds its row taken, and rolls back.
    await pg.sql`INSERT INTO ledger (project_id, kind, amount, request_id, created_at) VALUES (${p}, 'release', 300, 'r1', 2)`;
    expect(await money.settle({ projectId: p, requestId: "r1", charge: 100, allowance: 0, model: null, inputTokens: 1, outputTokens: 1, cost: 90, byok: false, now: 3 }))
      .toEqual({ ok: false });
    expect(await money.release(p, "r1", 3)).toBe(false);
    expect(await rowsOf(p)).toEqual({ holds: 1, open: 1 });
    expect(await money.figures(p)).toEqual({ balance: 1_000, reserved: 300 });
  });
});
