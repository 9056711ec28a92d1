// The request log's one-call batch (gw_write_log, migration 007) on a real throwaway cluster: the
// trace budget checked with the usage rows locked while three instances write one project at once,
// and batches mixing retried rows with new ones adding only the new rows' traces and rollups.
import { describe, expect, test } from "bun:test";
import { prepareRow } from "../../../src/store/log-batch-codec.ts";
import { openPostgres, type Postgres } from "../../../src/store/postgres/connect.ts";
import { postgresLogStore } from "../../../src/store/postgres/request-log.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { project, record, T0 } from "../contract/request-log.contract.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 20_000 }, (s, p) => {
  service = s;
  pg = p;
});

// Stored as 46 ASCII characters (the contract's budget test measures the same trace).
const TRACE = { pad: "x".repeat(30) };
const BYTES = 46;

const usage = async (p: string): Promise<number> => {
  const [row] = await pg.sql`SELECT bytes::int AS bytes FROM trace_usage WHERE project_id = ${p}`;
  return Number(row?.bytes ?? 0);
};
const tracesOf = async (p: string): Promise<number> => {
  const [row] = await pg.sql`SELECT count(*)::int AS n FROM traces WHERE project_id = ${p}`;
  return Number(row?.n ?? 0);
};

describe("gw_write_log", () => {
  test("three instances writing one project at once keep traces exactly until its budget; retries through another instance add nothing", async () => {
    const pools = [0, 1, 2].map(() => openPostgres(service.url, { max: 3, timeoutMs: 20_000 }));
    try {
      const stores = pools.map((p) => postgresLogStore(p));
      for (const s of stores) s.setTraceBudget(500);
      const p = project("budget_race");
      // The project's usage row exists (its first trace): a row not there yet cannot be locked.
      await stores[0]!.writeBatch([prepareRow(record(p, T0 - 1, { trace: TRACE }))]);
      expect(await stores[0]!.flushTraces!(20_000)).toBe(true);
      const batches = Array.from({ length: 30 }, (_, b) => Array.from({ length: 3 }, (_, i) => record(p, T0 + b * 3 + i, { trace: TRACE })));
      await Promise.all([0, 1, 2].map(async (w) => {
        for (let b = w; b < batches.length; b += 3) await stores[w]!.writeBatch(batches[b]!.map(prepareRow));
      }));
      await Promise.all(batches.map((batch, b) => stores[(b + 1) % 3]!.writeBatch(batch.map(prepareRow))));
      // Traces follow their rows (trace-writer.ts): each instance's queue written out.
      expect(await Promise.all(stores.map((s) => s.flushTraces!(20_000)))).toEqual([true, true, true]);
      // One writer at a time checks the budget: a trace is kept while the bytes before it are under
      // 500, so exactly ceil(500 / 46) = 11 of them (the first included), whatever the interleaving.
      expect(await tracesOf(p)).toBe(11);
      expect(await usage(p)).toBe(11 * BYTES);
      expect((await stores[0]!.list(p, { limit: 200 })).rows).toHaveLength(91);
      expect((await stores[1]!.totals(p, T0 - 60_000, T0 + 120_000)).requests).toBe(91);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  test("a batch mixing retried and new rows adds only the new rows' traces, trace bytes and rollups", async () => {
    const store = postgresLogStore(pg);
    const p = project("mixed");
    const first = [0, 1].map((i) => record(p, T0 + i, { trace: TRACE, latencyMs: 10 }));
    const fresh = [2, 3, 4].map((i) => record(p, T0 + i, { trace: i === 3 ? null : TRACE, latencyMs: 20, errorCategory: i === 4 ? "PROVIDER_ERROR" : null, status: i === 4 ? 502 : 200 }));
    expect(await store.writeBatch(first.map(prepareRow))).toEqual([]);
    expect(await store.writeBatch([fresh[0]!, first[1]!, fresh[1]!, first[0]!, fresh[2]!].map(prepareRow))).toEqual([]);
    expect(await store.flushTraces!(20_000)).toBe(true);
    expect(await tracesOf(p)).toBe(4);
    expect(await usage(p)).toBe(4 * BYTES);
    const t = await store.totals(p, T0 - (T0 % 60_000), T0 + 60_000);
    expect(t.requests).toBe(5);
    expect(t.failed).toBe(1);
    expect(t.errors).toEqual({ PROVIDER_ERROR: 1 });
    expect(t.latency.reduce((s, n) => s + n, 0)).toBe(5);
    expect(t.ttft.reduce((s, n) => s + n, 0)).toBe(5);
    expect((await store.get(p, fresh[1]!.id))?.trace).toBeNull();
    expect((await store.get(p, fresh[2]!.id))?.trace).toEqual(TRACE);
  });
});
