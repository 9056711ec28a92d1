// The PostgreSQL money store's cost per request (docs/scale-out.md "PostgreSQL"): sequential
// reserve + settle pairs on a throwaway cluster, p50/p95 of each step, without and with a daily and
// a monthly budget and the plan's allowance; then 8 concurrent pairs on one project. `bun bench/micro/pg-money.ts`
import { openPostgres } from "../../src/store/postgres/connect.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { postgresMoneyStore } from "../../src/store/postgres/money.ts";
import type { ReserveAsk } from "../../src/store/money-store.ts";
import { startPostgres } from "../../test/helpers/services.ts";
import { envNumber, fmt, percentiles } from "../lib/stats.ts";

const PAIRS = envNumber("PG_MONEY_PAIRS", 2_000);
const CONCURRENT = 8;

const service = await startPostgres();
const pg = openPostgres(service.url, { max: 10, timeoutMs: 10_000 });
try {
  await migratePostgres(pg.sql);
  const money = postgresMoneyStore(pg);
  const ms = (t: number): number => (Bun.nanoseconds() - t) / 1e6;
  let n = 0;
  const budgets = [{ period: "daily" as const, key: "2026-11-26", limit: 1e15 }, { period: "monthly" as const, key: "2026-11", limit: 1e15 }];
  const periods = budgets.map(({ period, key }) => ({ period, key }));
  const asks: Record<string, Omit<ReserveAsk, "requestId" | "now">> = {
    "prepaid, no budgets": { projectId: "prj_plain", amount: 600_000, allowance: 0 },
    "prepaid, 2 budgets + plan": { projectId: "prj_budgets", amount: 600_000, allowance: 0, budgets, plan: { key: "2026-11", limit: 1e12 } },
  };

  /** One reserve + settle; returns each step's milliseconds. */
  const pair = async (ask: Omit<ReserveAsk, "requestId" | "now">): Promise<[number, number]> => {
    const requestId = `req_${n++}`;
    let t = Bun.nanoseconds();
    const r = await money.reserve({ ...ask, requestId, now: n });
    const reserveMs = ms(t);
    if (!r.ok) throw new Error(`refused: ${r.code}`);
    t = Bun.nanoseconds();
    await money.settle({ projectId: ask.projectId, requestId, charge: 495_000, allowance: ask.allowance, model: "openai/gpt-4o-mini",
      inputTokens: 1_000, outputTokens: 500, cost: 450_000, byok: false, periods: ask.budgets ? periods : undefined, now: n });
    return [reserveMs, ms(t)];
  };

  const line = (name: string, xs: number[]): string => {
    const p = percentiles(xs);
    return `${name}: p50 ${fmt(p.p50)} ms, p95 ${fmt(p.p95)} ms`;
  };

  for (const [name, ask] of Object.entries(asks)) {
    await money.credit(ask.projectId, 1e15, "bench", 0);
    for (let i = 0; i < 200; i++) await pair(ask);
    const reserves: number[] = [];
    const settles: number[] = [];
    const pairs: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const [r, s] = await pair(ask);
      reserves.push(r);
      settles.push(s);
      pairs.push(r + s);
    }
    console.log(`${name}, ${PAIRS} sequential pairs`);
    console.log(`  ${line("reserve", reserves)}`);
    console.log(`  ${line("settle", settles)}`);
    console.log(`  ${line("pair", pairs)}`);
  }

  // 8 pairs at once on one project: they queue on its account row.
  const ask = asks["prepaid, 2 budgets + plan"];
  if (ask) {
    const rounds = Math.ceil(PAIRS / CONCURRENT);
    const pairs: number[] = [];
    const t0 = Bun.nanoseconds();
    for (let i = 0; i < rounds; i++) {
      const done = await Promise.all(Array.from({ length: CONCURRENT }, () => pair(ask)));
      for (const [r, s] of done) pairs.push(r + s);
    }
    const seconds = ms(t0) / 1000;
    console.log(`prepaid, 2 budgets + plan, ${CONCURRENT} concurrent on one project, ${rounds} rounds`);
    console.log(`  ${line("pair", pairs)}; ${fmt((rounds * CONCURRENT) / seconds, 0)} pairs/s`);
  }
} finally {
  await pg.close();
  await service.stop();
}
