// Hour compaction of the metrics rollups on a real PostgreSQL (src/store/postgres/rollup-hours.ts,
// migration 013): the metrics of every period are the same before, during and after folding, a fold
// rolled back changes nothing, late writes into folded minutes still count once, old minutes go.
import { describe, expect, test } from "bun:test";
import { metricsObject, metricsWindow } from "../../../src/observability/metrics.ts";
import { METRICS_PERIODS, type MetricsPeriod } from "../../../src/schema/metrics.ts";
import { HISTOGRAM_BUCKETS } from "../../../src/lib/histogram.ts";
import { prepareRow } from "../../../src/store/log-batch-codec.ts";
import { emptyTotals, type RollupTotals } from "../../../src/store/metrics-rollup.ts";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { Leader } from "../../../src/store/postgres/leader.ts";
import { rollupTotals } from "../../../src/store/postgres/metrics-rollups.ts";
import { postgresLogStore } from "../../../src/store/postgres/request-log.ts";
import { foldRollups, rollupHourJobs } from "../../../src/store/postgres/rollup-hours.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import { project, record } from "../contract/request-log.contract.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 30_000 }, (s, p) => {
  service = s;
  pg = p;
});

const MINUTE = 60_000;
const DAY = 86_400_000;
const T = Date.UTC(2027, 1, 10, 12, 30, 17);
const PERIODS = Object.keys(METRICS_PERIODS) as MetricsPeriod[];
const projects = [project("rollup_a"), project("rollup_b")];

/** Rows every `stepMin` minutes over `days` days before `end`, with errors, latencies and costs varied. */
async function writeRows(end: number, days: number, stepMin: number, seed: number): Promise<void> {
  const store = postgresLogStore(pg);
  store.setTraceBudget(1e12);
  let rows = [];
  for (let at = end - days * DAY, i = seed; at < end; at += stepMin * MINUTE, i++) {
    for (const p of projects) {
      const failed = i % 7 === 0;
      rows.push(prepareRow(record(p, at, {
        latencyMs: 20 + ((i * 37) % 900), ttftMs: 5 + (i % 50), cost: 0.00001 * (1 + (i % 5)), saved: i % 3 === 0 ? 0.000002 : 0,
        fallbacks: i % 11 === 0 ? 1 : 0, inputTokens: 10 + i % 13, outputTokens: 3 + i % 17, cache: i % 9 === 0 ? "exact" : null,
        ...(failed ? { status: i % 2 === 0 ? 500 : 400, errorCode: "x", errorMessage: "x", errorCategory: i % 2 === 0 ? "PROVIDER" : "INVALID_REQUEST" } : {}),
      })));
    }
    if (rows.length >= 400) {
      await store.writeBatch(rows);
      rows = [];
    }
  }
  if (rows.length > 0) await store.writeBatch(rows);
}

/** Every period's metrics object of every project, as /v1/metrics answers them, from the store's read. */
async function metrics(now: number): Promise<string> {
  const out: unknown[] = [];
  for (const p of projects) {
    for (const period of PERIODS) {
      const { from, to } = metricsWindow(period, now);
      out.push(metricsObject(period, await rollupTotals(pg, p, from, to)));
    }
  }
  return JSON.stringify(out);
}

/** The same, summed by PostgreSQL from the minute rows alone (what the read was before compaction). */
async function fromMinutes(now: number): Promise<string> {
  const out: unknown[] = [];
  for (const p of projects) {
    for (const period of PERIODS) {
      const { from, to } = metricsWindow(period, now);
      const [r] = await pg.sql`SELECT coalesce(sum(requests), 0)::float8 AS requests, coalesce(sum(failed), 0)::float8 AS failed,
        coalesce(sum(caller_failed), 0)::float8 AS caller_failed, coalesce(sum(fallbacks), 0)::float8 AS fallbacks,
        coalesce(sum(cache_hits), 0)::float8 AS cache_hits, coalesce(sum(input_tokens), 0)::float8 AS input_tokens,
        coalesce(sum(output_tokens), 0)::float8 AS output_tokens, coalesce(sum(cost), 0)::float8 AS cost, coalesce(sum(saved), 0)::float8 AS saved,
        gw_sum_counts(errors) AS errors, gw_sum_counts(latency) AS latency, gw_sum_counts(ttft) AS ttft
        FROM metrics_rollups WHERE project_id = ${p} AND bucket_ms = 60000 AND start_ms >= ${from} AND start_ms < ${to}`;
      const t: RollupTotals = {
        ...emptyTotals(), requests: r.requests, failed: r.failed, callerFailed: r.caller_failed, fallbacks: r.fallbacks, cacheHits: r.cache_hits,
        inputTokens: r.input_tokens, outputTokens: r.output_tokens, cost: r.cost / 1e9, saved: r.saved / 1e9,
        errors: Object.fromEntries(Object.entries(r.errors as Record<string, number>).map(([k, v]) => [k, Number(v)])),
      };
      for (const [into, from] of [[t.latency, r.latency], [t.ttft, r.ttft]] as const) {
        for (const [i, n] of Object.entries(from as Record<string, number>)) if (Number(i) < HISTOGRAM_BUCKETS) into[Number(i)] = Number(n);
      }
      out.push(metricsObject(period, t));
    }
  }
  return JSON.stringify(out);
}

const fold = (now: number, batch?: number) => pg.sql.begin((tx) => foldRollups(tx, now, batch));
const count = async (where: string): Promise<number> => Number((await pg.sql.unsafe(`SELECT count(*)::int AS n FROM metrics_rollups WHERE ${where}`))[0].n);

describe("metrics rollups: hour compaction", () => {
  test("the metrics of every period are the same before, during and after folding; a fold rolled back changes nothing", async () => {
    await writeRows(T, 34, 29, 1);
    const before = await metrics(T);
    expect(before).toBe(await fromMinutes(T));
    expect(JSON.parse(before)[3].requests).toBeGreaterThan(1000);

    // A leader that dies mid-fold: its transaction rolls back, nothing is folded.
    const unfolded = await count("bucket_ms = 60000 AND NOT folded");
    await expect(pg.sql.begin(async (tx) => {
      await foldRollups(tx, T, 500);
      throw new Error("leader gone");
    })).rejects.toThrow("leader gone");
    expect(await count("bucket_ms = 60000 AND NOT folded")).toBe(unfolded);
    expect(await count("bucket_ms = 3600000")).toBe(0);

    // Small batches: every intermediate state reads the same numbers.
    let batches = 0;
    for (;;) {
      const done = await fold(T, 1_000);
      if (done.minutes === 0) break;
      expect(await metrics(T)).toBe(before);
      batches++;
    }
    expect(batches).toBeGreaterThan(2);
    expect(await metrics(T)).toBe(before);
    expect(await count("bucket_ms = 3600000")).toBeGreaterThan(700);
    // Minutes of the last hours are not folded yet (the hour is not over); older than 32 days, deleted.
    expect(await count(`bucket_ms = 60000 AND NOT folded AND start_ms < ${T - 3_600_000 - 5 * MINUTE}`)).toBe(0);
    expect(await count(`bucket_ms = 60000 AND start_ms < ${T - 32 * DAY}`)).toBe(0);
    expect(await count(`bucket_ms = 3600000 AND start_ms < ${T - 33 * DAY}`)).toBeGreaterThan(0);
  });

  test("late writes into folded minutes and hours count once; the leader job folds them again", async () => {
    const truth = async () => {
      const m = await metrics(T);
      expect(m).toBe(await fromMinutes(T));
      return m;
    };
    const before = await truth();
    // A batch retried after an outage: rows in minutes already folded, in new minutes of folded hours, and now.
    await writeRows(T - 2 * DAY, 1, 7, 1000);
    await writeRows(T, 0.01, 1, 2000);
    const after = await truth();
    expect(after).not.toBe(before);
    expect(await count("bucket_ms = 60000 AND NOT folded")).toBeGreaterThan(0);

    const leader = new Leader(service.url, { instance: "gw-r", now: () => T, timeoutMs: 10_000, onError: (e) => { throw e; } });
    const done: Array<Record<string, number>> = [];
    for (const job of rollupHourJobs((d) => done.push(d))) leader.register(job);
    try {
      expect(await leader.tick()).toBe(true);
    } finally {
      await leader.stop();
    }
    expect(done.length).toBe(1);
    expect(done[0]!.minutes).toBeGreaterThan(0);
    expect(await count(`bucket_ms = 60000 AND NOT folded AND start_ms < ${T - 3_600_000 - 5 * MINUTE}`)).toBe(0);
    expect(await truth()).toBe(after);
  });
});
