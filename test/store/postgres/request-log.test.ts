// The request log store contract against PostgreSQL (src/store/postgres/request-log.ts) on a real
// throwaway cluster, plus what only PostgreSQL has: day partitions, and per-minute rollups that
// three instances add into exactly.
import { describe, expect, test } from "bun:test";
import { percentile } from "../../../src/lib/histogram.ts";
import { prepareRow } from "../../../src/store/log-batch-codec.ts";
import { addRow, emptyTotals } from "../../../src/store/metrics-rollup.ts";
import { openPostgres, type Postgres, StoreUnavailable } from "../../../src/store/postgres/connect.ts";
import { LogWriter } from "../../../src/store/log-writer.ts";
import { LEADER_LOCK } from "../../../src/store/postgres/leader.ts";
import { postgresLogSink } from "../../../src/store/postgres/log-sink.ts";
import { postgresLogStore } from "../../../src/store/postgres/request-log.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { type LogHarness, project, record, requestLogContract, T0 } from "../contract/request-log.contract.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 10, timeoutMs: 20_000 }, (s, p) => {
  service = s;
  pg = p;
});

const DAY = 86_400_000;

async function make(): Promise<LogHarness> {
  return {
    store: postgresLogStore(pg),
    async poison(id) {
      // A trigger's own exception (SQLSTATE P0001): the server failing a row mid-batch.
      await pg.sql.unsafe(`CREATE OR REPLACE FUNCTION gw_test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.id = '${id}' THEN RAISE EXCEPTION 'poisoned row'; END IF; RETURN NEW; END $$`);
      await pg.sql.unsafe("CREATE TRIGGER gw_test_poison BEFORE INSERT ON requests FOR EACH ROW EXECUTE FUNCTION gw_test_poison()");
    },
    async heal() {
      await pg.sql.unsafe("DROP TRIGGER gw_test_poison ON requests");
    },
    async count(projectId) {
      const [row] = await pg.sql`SELECT count(*)::int AS n FROM requests WHERE project_id = ${projectId}`;
      return Number(row?.n ?? 0);
    },
  };
}

requestLogContract("postgres", make);

describe("postgres request log", () => {
  test("rows of two days go to the two days' partitions, made on first use; traces beside them", async () => {
    const p = project("partitions");
    const later = T0 + 3 * DAY;
    const rows = [record(p, T0), record(p, T0 + 1), record(p, later)];
    const store = postgresLogStore(pg);
    await store.writeBatch(rows.map(prepareRow));
    expect(await store.flushTraces!(20_000)).toBe(true);
    const placed = await pg.sql`SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM requests
      WHERE project_id = ${p} GROUP BY 1 ORDER BY 1`;
    expect(placed).toEqual([{ part: "requests_p20261126", n: 2 }, { part: "requests_p20261129", n: 1 }]);
    const traces = await pg.sql`SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM traces
      WHERE project_id = ${p} GROUP BY 1 ORDER BY 1`;
    expect(traces).toEqual([{ part: "traces_p20261126", n: 2 }, { part: "traces_p20261129", n: 1 }]);
    const [usage] = await pg.sql`SELECT bytes::int AS bytes FROM trace_usage WHERE project_id = ${p}`;
    expect(usage?.bytes).toBe(rows.reduce((s, r) => s + Buffer.byteLength(prepareRow(r).trace!), 0));
  });

  test("a new day's partitions are made while another instance holds the leader's session lock", async () => {
    const leader = await pg.sql.reserve();
    try {
      expect((await leader`SELECT pg_try_advisory_lock(${LEADER_LOCK}) AS ok`)[0]?.ok).toBe(true);
      const p = project("leader_day");
      const rows = [record(p, T0 + 9 * DAY)].map(prepareRow);
      expect(await postgresLogStore(pg).writeBatch(rows)).toEqual([]);
      expect((await postgresLogStore(pg).list(p, { limit: 5 })).rows).toHaveLength(1);
    } finally {
      await leader`SELECT pg_advisory_unlock(${LEADER_LOCK})`;
      leader.release();
    }
  });

  test("rows carrying ledger entries are refused before anything is written (charges are the money store's)", async () => {
    const p = project("ledger");
    const row = { ...prepareRow(record(p, T0)), ledger: [] };
    await expect(postgresLogStore(pg).writeBatch([row])).rejects.toThrow(/money store/);
    const [n] = await pg.sql`SELECT count(*)::int AS n FROM requests WHERE project_id = ${p}`;
    expect(n?.n).toBe(0);
  });
});

describe("postgres request log, server gone", () => {
  test("each call fails as StoreUnavailable within its bound; the batch retried on a live pool lands once", async () => {
    const down = openPostgres(service.url.replace(/:\d+\//, ":1/"), { timeoutMs: 500 });
    const p = project("down");
    const rows = [record(p, T0), record(p, T0 + 1)].map(prepareRow);
    try {
      const store = postgresLogStore(down);
      await expect(store.writeBatch(rows)).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(store.list(p, { limit: 10 })).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(store.get(p, rows[0]!.id)).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(store.totals(p, 0, T0)).rejects.toBeInstanceOf(StoreUnavailable);
    } finally {
      await down.close();
    }
    const live = postgresLogStore(pg);
    expect(await live.writeBatch(rows)).toEqual([]);
    expect(await live.writeBatch(rows)).toEqual([]);
    expect((await live.list(p, { limit: 10 })).rows).toHaveLength(2);
    expect((await live.totals(p, T0, T0 + 60_000)).requests).toBe(2);
  });
});

describe("postgres log sink under the LogWriter", () => {
  test("batches that fail on the server are kept and retried; once it recovers every row lands once, rejected rows reported", async () => {
    const h = await make();
    const p = project("sink");
    const rejected: string[] = [];
    const errors: unknown[] = [];
    const writer = new LogWriter(postgresLogSink(h.store, (ids) => rejected.push(...ids)), { batchSize: 50, intervalMs: 5, onError: (err) => errors.push(err) });
    const records = Array.from({ length: 300 }, (_, i) => record(p, T0 + i));
    await h.poison(records[120]!.id);
    for (const r of records.slice(0, 200)) writer.enqueue(r);
    // The poisoned batch failed at least once and was put back.
    while (errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(writer.pending).toBeGreaterThan(0);
    await h.heal();
    for (const r of records.slice(200)) writer.enqueue(r);
    writer.enqueue({ ...record(p, T0 + 500), status: Number.NaN });
    await writer.drain();
    expect(await h.count(p)).toBe(300);
    expect(rejected).toHaveLength(1);
    expect((await h.store.totals(p, T0, T0 + 60_000)).requests).toBe(300);
  });
});

describe("postgres metrics rollups", () => {
  test("three instances writing the same minutes at once sum exactly; retried batches add nothing", async () => {
    const pools = [0, 1, 2].map(() => openPostgres(service.url, { max: 3, timeoutMs: 20_000 }));
    try {
      const stores = pools.map((p) => postgresLogStore(p));
      const p = project("rollups");
      // 3 instances x 10 batches x 30 rows over two minutes, latencies 1..900 ms, some failures.
      const batches = Array.from({ length: 30 }, (_, b) => Array.from({ length: 30 }, (_, i) => {
        const n = b * 30 + i;
        const failed = n % 7 === 0;
        return record(p, T0 + (n % 2) * 60_000 + n, {
          latencyMs: n + 1, ttftMs: n % 4 === 0 ? null : 5, inputTokens: n, outputTokens: 2 * n, cost: n * 0.000001,
          cache: n % 5 === 0 ? "exact" : null, fallbacks: n % 11 === 0 ? 1 : 0,
          ...(failed ? (n % 2 ? { status: 402, errorCode: "budget_exceeded", errorCategory: "BUDGET_EXCEEDED" } : { status: 502, errorCode: "provider_error", errorCategory: "PROVIDER_ERROR" }) : {}),
        });
      }));
      await Promise.all([0, 1, 2].map(async (w) => {
        for (let b = w; b < batches.length; b += 3) await stores[w]!.writeBatch(batches[b]!.map(prepareRow));
      }));
      // Every batch retried through another instance: already written, so no rollup changes.
      await Promise.all(batches.map((batch, b) => stores[(b + 1) % 3]!.writeBatch(batch.map(prepareRow))));
      const all = batches.flat();
      const t = await stores[0]!.totals(p, T0 - (T0 % 60_000), T0 + 180_000);
      const minutes = await pg.sql`SELECT count(*)::int AS n FROM metrics_rollups WHERE project_id = ${p}`;
      expect(minutes[0]?.n).toBe(2);
      expect(t.requests).toBe(900);
      expect(t.inputTokens).toBe(all.reduce((s, r) => s + r.inputTokens, 0));
      expect(t.outputTokens).toBe(all.reduce((s, r) => s + r.outputTokens, 0));
      // Stored in integer nano-USD: the three writers' sums are exact.
      const [stored] = await pg.sql`SELECT sum(cost)::float8 AS cost FROM metrics_rollups WHERE project_id = ${p}`;
      expect(stored?.cost).toBe(all.reduce((s, r) => s + Math.round(r.cost * 1e9), 0));
      expect(t.cacheHits).toBe(all.filter((r) => r.cache !== null).length);
      expect(t.fallbacks).toBe(all.filter((r) => r.fallbacks > 0).length);
      expect(t.failed).toBe(all.filter((r) => r.errorCategory !== null).length);
      const errors: Record<string, number> = {};
      for (const r of all) if (r.errorCategory) errors[r.errorCategory] = (errors[r.errorCategory] ?? 0) + 1;
      expect(t.errors).toEqual(errors);
      const latencies = t.latency.reduce((s, n) => s + n, 0);
      // Caller-side failures are left out of latencies, as in SQLite's rollups.
      expect(t.callerFailed).toBe(all.filter((r) => r.errorCategory === "BUDGET_EXCEEDED").length);
      expect(t.callerFailed).toBeGreaterThan(0);
      expect(latencies).toBe(900 - t.callerFailed);
      expect(t.ttft.reduce((s, n) => s + n, 0)).toBe(all.filter((r) => r.ttftMs !== null).length);
      expect(percentile(t.ttft, 50)).toBe(5);
      // Bucket for bucket what one process summing every row itself gets.
      const local = emptyTotals();
      for (const r of all) addRow(local, prepareRow(r).values);
      expect(t.cost).toBeCloseTo(local.cost, 12);
      expect({ ...t, cost: 0, saved: 0 }).toEqual({ ...local, cost: 0, saved: 0 });
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });
});
