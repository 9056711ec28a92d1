// `bun bench/scale-out-floor.ts`: the floor under the multi-instance mode's overhead (docs/scale-out.md
// "Measured overhead"): only the shared-store calls a request must wait for, made directly on the real
// stores with no gw around them, one request at a time. A miss: the rate limit and the exact-cache
// read (one Redis round trip), the hold (PostgreSQL), then its log row carrying its charge (one
// PostgreSQL call). A hit: the Redis round trip, then its log row carrying its cache row.
// Knobs: BENCH_REQUESTS (2000).
import { RedisClient } from "bun";
import { limitHeaders } from "../src/billing/rate-limit-headers.ts";
import { prepareRow } from "../src/store/log-batch-codec.ts";
import { openPostgres } from "../src/store/postgres/connect.ts";
import { migratePostgres } from "../src/store/postgres/migrate.ts";
import { postgresMoneyStore } from "../src/store/postgres/money.ts";
import { postgresLogStore, type CarriedSettle } from "../src/store/postgres/request-log.ts";
import { redisStores } from "../src/store/redis/stores.ts";
import { project, record } from "../test/store/contract/request-log.contract.ts";
import { startPostgres, startRedis } from "../test/helpers/services.ts";
import { envNumber, fmt, percentiles } from "./lib/stats.ts";

const N = envNumber("BENCH_REQUESTS", 2000);
const [pgService, redisService] = await Promise.all([startPostgres(), startRedis()]);
const pg = openPostgres(pgService.url);
const redis = new RedisClient(redisService.url);
try {
  await migratePostgres(pg.sql);
  const fast = redisStores(redis, { limitHeaders });
  const money = postgresMoneyStore(pg);
  const logs = postgresLogStore(pg);
  const p = project("floor");
  await money.credit(p, 1e15, "bench", Date.now());
  const levels = [{ id: `p:${p}`, name: "project", limits: { rpm: 1e8, tpm: 1e11 } }];
  const periods = () => {
    const day = new Date().toISOString().slice(0, 10);
    return [{ period: "daily" as const, key: day }, { period: "monthly" as const, key: day.slice(0, 7) }];
  };
  const carried = (requestId: string, kind: "charge" | "cache"): CarriedSettle => ({
    projectId: p, kind, amount: kind === "charge" ? 800 : 0, requestId, model: "openai/gpt-4o-mini", inputTokens: 200, outputTokens: 50,
    cost: 800, saved: kind === "cache" ? 800 : 0, byok: false, createdAt: Date.now(), allowance: kind === "charge" ? 0 : null, periods: periods(),
  });

  const steps = { redis: [] as number[], hold: [] as number[], log: [] as number[] };
  async function one(hit: boolean): Promise<number> {
    const row = prepareRow(record(p, Date.now()));
    const t0 = performance.now();
    // As the rate-limit stage does: the cache read sent in the same tick as the limit's script.
    await Promise.all([fast.rateLimits.admit(row.id, levels, { bound: 250 }), fast.answers.get(p, `k-${row.id}`, Date.now())]);
    const t1 = performance.now();
    if (!hit) {
      const held = await money.reserve({ projectId: p, requestId: row.id, amount: 1_000, allowance: 0, now: Date.now() });
      if (!held.ok) throw new Error("hold refused");
    }
    const t2 = performance.now();
    await logs.writeBatch([{ ...row, ledger: [carried(row.id, hit ? "cache" : "charge")] }]);
    const t3 = performance.now();
    steps.redis.push(t1 - t0);
    if (!hit) steps.hold.push(t2 - t1);
    steps.log.push(t3 - t2);
    return t3 - t0;
  }

  for (let i = 0; i < 200; i++) await one(i % 2 === 0);
  for (const k of ["redis", "hold", "log"] as const) steps[k] = [];
  const times = { miss: [] as number[], hit: [] as number[] };
  for (let i = 0; i < N; i++) times[i % 2 === 0 ? "miss" : "hit"].push(await one(i % 2 === 1));
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  for (const kind of ["miss", "hit"] as const) {
    const s = percentiles(times[kind]);
    console.log(JSON.stringify({ floor: kind, requests: times[kind].length, p50_ms: fmt(s.p50), p95_ms: fmt(s.p95), load }));
  }
  console.log(JSON.stringify({ steps_p50_ms: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, fmt(percentiles(v).p50)])) }));
} finally {
  redis.close();
  await pg.close();
  await Promise.all([pgService.stop(), redisService.stop()]);
}
