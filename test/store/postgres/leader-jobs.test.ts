// The leader's periodic jobs (src/store/postgres/leader-jobs.ts) on a real throwaway cluster, under
// an injected clock: partitions made ahead, old days dropped with their trace bytes, a stale hold
// released with its release row, expired rows and old rollups deleted; and the `leader` service's lines.
import { describe, expect, test } from "bun:test";
import { prepareRow } from "../../../src/store/log-batch-codec.ts";
import type { Postgres } from "../../../src/store/postgres/connect.ts";
import { Leader } from "../../../src/store/postgres/leader.ts";
import { leaderJobs, leaderService, STALE_HOLD_MARGIN_MS } from "../../../src/store/postgres/leader-jobs.ts";
import { postgresMoneyStore } from "../../../src/store/postgres/money.ts";
import { postgresLogStore } from "../../../src/store/postgres/request-log.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { project, record } from "../contract/request-log.contract.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";

let service: PostgresService;
let pg: Postgres;
migratedPostgresForFile({ max: 4, timeoutMs: 20_000 }, (s, p) => {
  service = s;
  pg = p;
});

const DAY = 86_400_000;
const T = Date.UTC(2027, 0, 10, 12);
const REQUEST_TIMEOUT_MS = 300_000;

async function partitions(): Promise<string[]> {
  const rows: Array<{ name: string }> = await pg.sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'requests' ORDER BY 1`;
  return rows.map((r) => r.name);
}

const runs = async () => Object.fromEntries(((await pg.sql`SELECT name, runs::int AS runs FROM leader_jobs ORDER BY name`) as Array<{ name: string; runs: number }>).map((r) => [r.name, r.runs]));

describe("leader jobs", () => {
  test("one round under an injected clock: partitions ahead, retention, a stale hold released, expired rows and old rollups gone", async () => {
    const clock = { now: T };
    const p = project("leader_jobs");
    // Log rows 10 and 3 days back (their partitions made on first use), traces included.
    const old = prepareRow(record(p, T - 10 * DAY));
    const recent = prepareRow(record(p, T - 3 * DAY));
    await postgresLogStore(pg).writeBatch([old, recent]);
    expect(await partitions()).toEqual(["requests_p20261231", "requests_p20270107"]);

    // A hold older than the longest request can live, and one of a request still running.
    const money = postgresMoneyStore(pg);
    await money.credit(p, 1_000, null, 0);
    const staleAt = T - REQUEST_TIMEOUT_MS - STALE_HOLD_MARGIN_MS - 1;
    expect(await money.reserve({ projectId: p, requestId: "r-stale", amount: 300, allowance: 0, now: staleAt })).toEqual({ ok: true, replayed: false });
    expect(await money.reserve({ projectId: p, requestId: "r-live", amount: 200, allowance: 0, now: T - 60_000 })).toEqual({ ok: true, replayed: false });

    await pg.sql`INSERT INTO idempotency_keys (project_id, key, fingerprint, request_id, state, created_at, expires_at) VALUES
      (${p}, 'gone', 'f', 'r1', 'stored', ${T - DAY}, ${T}), (${p}, 'kept', 'f', 'r2', 'stored', ${T - 1}, ${T + DAY})`;
    await pg.sql`INSERT INTO dashboard_sessions (token_hash, id, role, scopes, csrf_token, created_at, expires_at) VALUES
      ('h-gone', 's-gone', 'operator', '*', 'c', ${T - DAY}, ${T - 1}), ('h-kept', 's-kept', 'operator', '*', 'c', ${T - 1}, ${T + DAY})`;
    await pg.sql`INSERT INTO semantic_vectors (id, project_id, partition, embedder, vector, created_at, expires_at) VALUES
      (1, ${p}, 'x', 'ngram-256', ${new Uint8Array(4)}, ${T - DAY}, ${T}), (2, ${p}, 'x', 'ngram-256', ${new Uint8Array(4)}, ${T - 1}, ${T + DAY})`;
    // Rollups: one minute past the 400-day horizon, one inside it.
    await pg.sql`INSERT INTO metrics_rollups (bucket_ms, start_ms, project_id, requests) VALUES
      (60000, ${T - 401 * DAY}, ${`${p}_r`}, 1), (60000, ${T - 30 * DAY}, ${`${p}_r`}, 2)`;

    const done: Array<[string, Record<string, unknown>]> = [];
    const errors: unknown[] = [];
    const leader = new Leader(service.url, { instance: "gw-a", now: () => clock.now, timeoutMs: 10_000, onError: (e) => errors.push(e) });
    for (const job of leaderJobs({ money, retentionDays: 7, requestTimeoutMs: REQUEST_TIMEOUT_MS, onDone: (job, d) => done.push([job, d]) })) leader.register(job);
    try {
      expect(await leader.tick()).toBe(true);
      expect(errors).toEqual([]);

      // Today and two days ahead made; the day ending more than 7 days back dropped, 3 days back kept.
      expect(await partitions()).toEqual(["requests_p20270107", "requests_p20270110", "requests_p20270111", "requests_p20270112"]);
      const [traceTables] = await pg.sql`SELECT to_regclass('traces_p20261231') IS NULL AS dropped, to_regclass('traces_p20270112') IS NOT NULL AS ahead`;
      expect(traceTables).toEqual({ dropped: true, ahead: true });
      const left = await pg.sql`SELECT id FROM requests WHERE project_id = ${p}`;
      expect(left.map((r: { id: string }) => r.id)).toEqual([recent.id]);
      const [usage] = await pg.sql`SELECT bytes::int AS bytes FROM trace_usage WHERE project_id = ${p}`;
      expect(usage?.bytes).toBe(Buffer.byteLength(recent.trace!));

      // The stale hold is released like any release (its row in the ledger); the live one stays.
      const ledger = await pg.sql`SELECT kind, request_id, amount::int AS amount, created_at::float8 AS at FROM ledger
        WHERE project_id = ${p} AND kind IN ('hold', 'release') ORDER BY seq`;
      expect(ledger).toEqual([
        { kind: "hold", request_id: "r-stale", amount: 300, at: staleAt },
        { kind: "hold", request_id: "r-live", amount: 200, at: T - 60_000 },
        { kind: "release", request_id: "r-stale", amount: 300, at: T },
      ]);
      const open = await pg.sql`SELECT request_id FROM ledger_open_holds WHERE project_id = ${p}`;
      expect(open.map((r: { request_id: string }) => r.request_id)).toEqual(["r-live"]);
      expect(await money.figures(p)).toEqual({ balance: 1_000, reserved: 200 });

      expect((await pg.sql`SELECT key FROM idempotency_keys WHERE project_id = ${p}`).map((r: { key: string }) => r.key)).toEqual(["kept"]);
      expect((await pg.sql`SELECT id FROM dashboard_sessions`).map((r: { id: string }) => r.id)).toEqual(["s-kept"]);
      expect((await pg.sql`SELECT id::int AS id FROM semantic_vectors`).map((r: { id: number }) => r.id)).toEqual([2]);
      expect((await pg.sql`SELECT requests::int AS n FROM metrics_rollups WHERE project_id = ${`${p}_r`}`).map((r: { n: number }) => r.n)).toEqual([2]);

      expect(Object.fromEntries(done)).toEqual({
        partitions: { created: ["requests_p20270110", "traces_p20270110", "requests_p20270111", "traces_p20270111", "requests_p20270112", "traces_p20270112"] },
        "stale holds": { released: 1 },
        "expired rows": { idempotency_keys: 1, dashboard_sessions: 1, semantic_vectors: 1 },
        "rollup pruning": { metrics_rollups: 1, model_rollups: 0, status_rollups: 0 },
        retention: { dropped: ["requests_p20261231", "traces_p20261231"] },
      });
      const once = { partitions: 1, retention: 1, "rollup pruning": 1, "stale holds": 1, "expired rows": 1 };
      expect(await runs()).toEqual(once);

      // A round at the same time runs nothing again; an hour on, only the hourly and minute jobs.
      expect(await leader.tick()).toBe(true);
      expect(await runs()).toEqual(once);
      clock.now += 3_600_000;
      expect(await leader.tick()).toBe(true);
      expect(await runs()).toEqual({ ...once, partitions: 2, "stale holds": 2, "expired rows": 2 });
      // A day on: the next day ahead is made; the 3-day-old partition is kept until it is past 7 days.
      clock.now += DAY;
      expect(await leader.tick()).toBe(true);
      expect(await partitions()).toEqual(["requests_p20270107", "requests_p20270110", "requests_p20270111", "requests_p20270112", "requests_p20270113"]);
      expect(await runs()).toEqual({ partitions: 3, retention: 2, "rollup pruning": 2, "stale holds": 3, "expired rows": 3 });
      expect(errors).toEqual([]);
    } finally {
      await leader.stop();
    }
  });

  test("the leader service: one of two instances logs that it leads; stopped, it says so and the other takes over", async () => {
    const lines: Array<{ who: string; msg: string }> = [];
    const log = (who: string) => ({
      info: (_d: Record<string, unknown>, msg: string) => void lines.push({ who, msg }),
      warn: (_d: Record<string, unknown>, msg: string) => void lines.push({ who, msg }),
    });
    const leads = (who: string) => lines.filter((l) => l.who === who && l.msg.startsWith("this instance is now the leader")).length;
    const money = postgresMoneyStore(pg);
    const make = (who: string) => leaderService({ url: service.url, instance: who, now: () => T, log: log(who), money, retentionDays: 0, requestTimeoutMs: REQUEST_TIMEOUT_MS, intervalMs: 100 });
    const a = make("a");
    const b = make("b");
    a.start();
    try {
      await waitFor(() => leads("a") === 1, { what: "a to lead" });
      b.start();
      // b's first round found the lock taken (a round reports only a change, so it said nothing).
      await waitFor(async () => (await pg.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'gw-leader b'`)[0]?.n === 1, { what: "b to connect" });
      expect(leads("b")).toBe(0);
      await a.stop();
      expect(lines.filter((l) => l.who === "a" && l.msg.startsWith("this instance")).map((l) => l.msg)).toEqual(["this instance is now the leader: it runs the periodic jobs", "this instance is no longer the leader"]);
      await waitFor(() => leads("b") === 1, { what: "b to take over" });
      expect(leads("a")).toBe(1);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
