// `bun bench/micro/rollup-read.ts`: /v1/metrics?period=30d's read on PostgreSQL (docs/scale-out.md
// "Request log and metrics"): 43,200 minute rows of one project summed, then the same window once the
// leader has folded them into hours (src/store/postgres/rollup-hours.ts). Knob: BENCH_ITERATIONS (10).
import { metricsWindow } from "../../src/observability/metrics.ts";
import { openPostgres } from "../../src/store/postgres/connect.ts";
import { rollupTotals } from "../../src/store/postgres/metrics-rollups.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { foldRollups } from "../../src/store/postgres/rollup-hours.ts";
import { startPostgres } from "../../test/helpers/services.ts";
import { envNumber, fmt, percentiles } from "../lib/stats.ts";

const ITERATIONS = envNumber("BENCH_ITERATIONS", 10);
const NOW = Date.now();
const { from, to } = metricsWindow("30d", NOW);

const service = await startPostgres();
const pg = openPostgres(service.url, { max: 4, timeoutMs: 60_000 });
try {
  await migratePostgres(pg.sql);
  // One row a minute for 30 days, with a few histogram buckets and error counts each.
  await pg.sql`INSERT INTO metrics_rollups (bucket_ms, start_ms, project_id, requests, failed, cost, errors, latency, ttft)
    SELECT 60000, ${from} + i::bigint * 60000, 'prj_bench', 5, i % 2, 12345, jsonb_build_object('PROVIDER', i % 2),
      jsonb_build_object((i % 40)::text, 3, (10 + i % 30)::text, 2), jsonb_build_object((i % 20)::text, 5)
    FROM generate_series(0, ${(to - from) / 60_000 - 1}) i`;
  const measure = async (label: string) => {
    let requests = 0;
    const ms: number[] = [];
    for (let i = 0; i < ITERATIONS + 2; i++) {
      const t = performance.now();
      requests = (await rollupTotals(pg, "prj_bench", from, to)).requests;
      if (i >= 2) ms.push(performance.now() - t);
    }
    const p = percentiles(ms);
    console.log(`${label.padEnd(36)} p50 ${fmt(p.p50, 1)} ms  p95 ${fmt(p.p95, 1)} ms  (${requests} requests)`);
  };
  await measure("30d, 43,200 minute rows");
  let folded = 0;
  for (;;) {
    const done = await pg.sql.begin((tx) => foldRollups(tx, NOW));
    if (done.minutes === 0) break;
    folded += done.minutes;
  }
  console.log(`folded ${folded} minute rows`);
  await measure("30d, hours + edge minutes");
} finally {
  await pg.close();
  await service.stop();
}
