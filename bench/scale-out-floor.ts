// `bun bench/scale-out-floor.ts`: the floor under the multi-instance overhead (docs/scale-out.md "Measured
// overhead"): only the store calls a request must wait for, on the real stores without gw, one at a time,
// plain and shaped like bench/scale-out.ts's project (measure()). Knobs: BENCH_REQUESTS (2000).
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
  const periods = () => {
    const day = new Date().toISOString().slice(0, 10);
    return [{ period: "daily" as const, key: day }, { period: "monthly" as const, key: day.slice(0, 7) }];
  };
  // A trace the size of a miss's in bench/scale-out.ts (eleven spans, the decision, ~850 bytes encoded).
  const spans = Array.from({ length: 11 }, (_, i) => [["request", "parse", "guard", "analysis", "rate_limit", "cache", "optimization", "routing", "reserve", "call", "llm"][i], i * 0.1, 0.1, null]);
  const benchTrace = {
    spans, detected: { task: "summarization", subtype: "summary", source: "detected", input_tokens_bound: 909, language: "en", complexity: "medium" },
    candidates: [{ model: "openai/gpt-4o-mini", score: 0, eligible: true }], reason: "model requested explicitly",
    attempts: [{ model: "openai/gpt-4o-mini", provider: "openai", outcome: "ok", status: 200, attempt: 1 }],
    timings: { call: 0.72, meter: 0.028, cache_store: 0.076 }, cache: { result: "miss", miss_reason: "not_found", semantic: { eligible: false, reason: "semantic_off" } },
    billing: { mode: "prepaid", reserved: 0.000192225, charged: 0.00005643 }, versions: { gw: "0.1.0", catalog: "2026-10-04", profiles: "profiles-2", classifier: "classifier-2" },
  };

  /** A miss: the rate limit and the exact-cache read (one Redis round trip), the hold, then its log row
   * carrying its charge (one PostgreSQL call); a hit: the Redis round trip, then its row with its cache row.
   * `plain`: one rate-limit level, a hold with no budget, a two-span trace, no trace budget. `bench`:
   * what bench/scale-out.ts's project makes gw ask of the stores: project and key levels, daily and
   * monthly block budgets on the hold, a full trace under the default 1 GiB trace budget. */
  async function measure(shape: "plain" | "bench"): Promise<void> {
    const p = project(`floor-${shape}`);
    await money.credit(p, 1e15, "bench", Date.now());
    const full = shape === "bench";
    logs.setTraceBudget(full ? 1024 ** 3 : 0);
    const levels = [{ id: `p:${p}`, name: "project", limits: { rpm: 1e8, tpm: 1e11 } }];
    if (full) levels.push({ id: `k:${p}`, name: "key", limits: { rpm: 1e8, tpm: 1e11 } });
    const budgets = () => periods().map((b) => ({ ...b, limit: 1e15 }));
    const carried = (requestId: string, kind: "charge" | "cache"): CarriedSettle => ({
      projectId: p, kind, amount: kind === "charge" ? 800 : 0, requestId, model: "openai/gpt-4o-mini", inputTokens: 200, outputTokens: 50,
      cost: 800, saved: kind === "cache" ? 800 : 0, byok: false, createdAt: Date.now(), allowance: kind === "charge" ? 0 : null, periods: periods(),
      held: kind === "charge",
    });

    const steps = { redis: [] as number[], hold: [] as number[], log: [] as number[] };
    async function one(hit: boolean): Promise<number> {
      const row = prepareRow(record(p, Date.now(), full ? { trace: benchTrace } : {}));
      const t0 = performance.now();
      // As the rate-limit stage does: the cache read sent in the same tick as the limit's script.
      await Promise.all([fast.rateLimits.admit(row.id, levels, { bound: 250 }), fast.answers.get(p, `k-${row.id}`, Date.now())]);
      const t1 = performance.now();
      if (!hit) {
        const held = await money.reserve({ projectId: p, requestId: row.id, amount: 1_000, allowance: 0, now: Date.now(), ...(full ? { budgets: budgets() } : {}) });
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
      console.log(JSON.stringify({ floor: kind, shape, requests: times[kind].length, p50_ms: fmt(s.p50), p95_ms: fmt(s.p95), load }));
    }
    console.log(JSON.stringify({ shape, steps_p50_ms: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, fmt(percentiles(v).p50)])) }));
  }

  // Alternated, so drift on the shared machine falls on both shapes.
  for (const shape of ["plain", "bench", "plain", "bench"] as const) await measure(shape);
} finally {
  redis.close();
  await pg.close();
  await Promise.all([pgService.stop(), redisService.stop()]);
}
