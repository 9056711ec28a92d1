// Traces written after their rows (src/store/postgres/trace-writer.ts, migration 015) on a real
// throwaway cluster: an answer's row commits without its trace, the traces of many batches go in one
// call, a read on the instance waits for them, a server that goes away and comes back loses none and
// counts none twice, and a queue at its bound drops traces (never rows) loudly.
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

// Stored as 46 ASCII characters (as request-log-concurrent.test.ts).
const TRACE = { pad: "x".repeat(30) };
const BYTES = 46;
/** Long enough that no batch leaves by itself during a test: only drain() sends it. */
const HELD = { gatherMs: 600_000 };

const counts = async (p: string) => {
  const [row] = await pg.sql`SELECT (SELECT count(*)::int FROM requests WHERE project_id = ${p}) AS rows,
    (SELECT count(*)::int FROM traces WHERE project_id = ${p}) AS traces,
    (SELECT coalesce(max(bytes), 0)::int FROM trace_usage WHERE project_id = ${p}) AS bytes`;
  return row as { rows: number; traces: number; bytes: number };
};

const calls = async (): Promise<number> => {
  const [row] = await pg.sql`SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_user_functions WHERE funcname = 'gw_write_traces'`;
  return Number(row?.n ?? 0);
};

describe("traces after their rows", () => {
  test("rows commit without their traces; one call later writes the traces of many batches", async () => {
    await pg.sql.unsafe("ALTER SYSTEM SET track_functions = 'pl'");
    await pg.sql.unsafe("SELECT pg_reload_conf()");
    const store = postgresLogStore(pg, { traces: HELD });
    const p = project("later");
    for (let b = 0; b < 5; b++) await store.writeBatch([0, 1].map((i) => prepareRow(record(p, T0 + b * 2 + i, { trace: TRACE }))));
    expect(await counts(p)).toEqual({ rows: 10, traces: 0, bytes: 0 });
    const before = await calls();
    expect(await store.flushTraces!(20_000)).toBe(true);
    expect(await counts(p)).toEqual({ rows: 10, traces: 10, bytes: 10 * BYTES });
    // Statistics of another backend's calls reach the view when its transaction ends: awaited, not slept.
    let after = before;
    for (let i = 0; i < 1_000 && after === before; i++) after = await Bun.sleep(10).then(calls);
    expect(after - before).toBe(1);
  });

  test("a read on the instance waits for the traces it queued", async () => {
    const store = postgresLogStore(pg, { traces: HELD });
    const p = project("read");
    const row = record(p, T0, { trace: TRACE });
    await store.writeBatch([prepareRow(row)]);
    expect((await store.get(p, row.id))?.trace).toEqual(TRACE);
  });

  test("a trace batch failing while the server is away is kept; once it is back each trace lands once", async () => {
    const failures: number[] = [];
    const local = openPostgres(service.url, { max: 2, timeoutMs: 2_000 });
    try {
      const store = postgresLogStore(local, { traces: { ...HELD, retryMs: 50, onError: (_err, n) => failures.push(n) } });
      const p = project("outage");
      await store.writeBatch([0, 1, 2].map((i) => prepareRow(record(p, T0 + i, { trace: TRACE }))));
      await service.down();
      try {
        expect(await store.flushTraces!(1_500)).toBe(false);
        expect(failures.length).toBeGreaterThan(0);
        expect(failures[0]).toBe(3);
      } finally {
        await service.up();
      }
      // The kept batch goes with the next trace: each written once, its bytes counted once.
      await store.writeBatch([prepareRow(record(p, T0 + 3, { trace: TRACE }))]);
      expect(await store.flushTraces!(20_000)).toBe(true);
      expect(await counts(p)).toEqual({ rows: 4, traces: 4, bytes: 4 * BYTES });
    } finally {
      await local.close();
    }
  });

  test("a row written twice before its traces leave (a retried batch) has one trace, counted once", async () => {
    const store = postgresLogStore(pg, { traces: HELD });
    const p = project("twice");
    const rows = [0, 1].map((i) => prepareRow(record(p, T0 + i, { trace: TRACE })));
    await store.writeBatch(rows);
    await store.writeBatch([...rows, prepareRow(record(p, T0 + 2, { trace: TRACE }))]);
    expect(await store.flushTraces!(20_000)).toBe(true);
    expect(await counts(p)).toEqual({ rows: 3, traces: 3, bytes: 3 * BYTES });
  });

  test("past the queue's bound traces are dropped and told; their rows are stored", async () => {
    const dropped: number[] = [];
    const store = postgresLogStore(pg, { traces: { ...HELD, maxTraces: 2, onDrop: (n) => dropped.push(n) } });
    const p = project("bound");
    await store.writeBatch([0, 1, 2, 3].map((i) => prepareRow(record(p, T0 + i, { trace: TRACE }))));
    expect(dropped).toEqual([1, 2]);
    expect(await store.flushTraces!(20_000)).toBe(true);
    expect(await counts(p)).toEqual({ rows: 4, traces: 2, bytes: 2 * BYTES });
  });
});
