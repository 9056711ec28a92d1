// PostgreSQL migrations under the advisory lock, day partitions and the bounded pool
// (src/store/postgres/), against a real throwaway cluster (test/helpers/services.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { bounded, openPostgres, StoreUnavailable } from "../../../src/store/postgres/connect.ts";
import { migratePostgres, PG_MIGRATIONS, PG_SCHEMA_VERSION, PgSchemaTooNew } from "../../../src/store/postgres/migrate.ts";
import { dropPartitionsBefore, ensurePartitions, partitionName } from "../../../src/store/postgres/partitions.ts";
import { type PostgresService, startPostgres } from "../../helpers/services.ts";

let pg: PostgresService;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(async () => {
  await pg?.stop();
});

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 26, 15, 0, 0);

describe("migratePostgres", () => {
  test("three runners started at once on one database apply each migration exactly once", async () => {
    // Three pools: three instances starting together, each on its own connections.
    const pools = [0, 1, 2].map(() => new SQL({ url: pg.url, max: 2 }));
    try {
      const applied = await Promise.all(pools.map((sql) => migratePostgres(sql)));
      expect(applied.flat().sort((x, y) => x - y)).toEqual(PG_MIGRATIONS.map((m) => m.version));
      expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
      const rows = await pools[0]!`SELECT version, name FROM schema_migrations ORDER BY version`;
      expect(rows.map((r: { version: number; name: string }) => `${r.version}:${r.name}`)).toEqual(PG_MIGRATIONS.map((m) => `${m.version}:${m.name}`));
      // Run again: nothing left to apply, and the lock was given back (this would wait forever otherwise).
      expect(await Promise.all(pools.map((sql) => migratePostgres(sql)))).toEqual([[], [], []]);
      const [locks] = await pools[0]!`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`;
      expect(locks.n).toBe(0);
    } finally {
      await Promise.all(pools.map((sql) => sql.close()));
    }
  });

  test("the schema holds the durable tables, money in BIGINT", async () => {
    const sql = new SQL({ url: pg.url, max: 1 });
    try {
      const tables = (await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`).map((r: { tablename: string }) => r.tablename);
      for (const t of ["projects", "api_keys", "provider_keys", "accounts", "ledger", "ledger_open_holds", "spend_counters", "budget_events",
        "idempotency_keys", "feedback", "semantic_vectors", "dashboard_sessions", "audit_log", "requests", "traces",
        "metrics_rollups", "model_rollups", "webhook_queue", "webhook_deliveries", "alert_rules", "incidents"]) expect(tables).toContain(t);
      const money = await sql`SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE (table_name, column_name) IN (('accounts', 'balance'), ('ledger', 'amount'), ('ledger', 'cost'), ('requests', 'cost'), ('projects', 'credit_limit'))`;
      expect(money.map((r: { data_type: string }) => r.data_type)).toEqual(["bigint", "bigint", "bigint", "bigint", "bigint"]);
      const [kind] = await sql`SELECT c.relkind FROM pg_class c WHERE c.relname = 'requests'`;
      expect(kind.relkind).toBe("p");
      await sql`INSERT INTO audit_log (id, created_at, actor_type, action, outcome, details) VALUES ('a1', 1, 'operator', 'x', 'success', '{}')`;
      await expect(sql`DELETE FROM audit_log`).rejects.toThrow(/append-only/);
    } finally {
      await sql.close();
    }
  });

  test("a database that got a later version before earlier ones still gets the earlier ones, in order", async () => {
    const admin = new SQL({ url: pg.url, max: 1 });
    await admin.unsafe("CREATE DATABASE gw_gap");
    await admin.close();
    const sql = new SQL({ url: pg.url.replace(/\/[^/]*$/, "/gw_gap"), max: 1 });
    try {
      // Versions 1-7 and a later one applied as an older runner would have, the ones between missing.
      // 14 stands alone (015 replaces a function 008 creates, so it cannot come before 008).
      const early = PG_MIGRATIONS.filter((m) => m.version <= 7 || m.version === 14);
      await sql`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`;
      for (const m of early) {
        await sql.begin(async (tx) => {
          await tx.unsafe(m.sql);
          await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, 0)`;
        });
      }
      const missing = PG_MIGRATIONS.filter((m) => !early.includes(m)).map((m) => m.version);
      expect(missing.length).toBeGreaterThan(0);
      expect(await migratePostgres(sql)).toEqual(missing);
      const rows: Array<{ version: number }> = await sql`SELECT version FROM schema_migrations ORDER BY version`;
      expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    } finally {
      await sql.close();
    }
  });

  test("a database migrated by a newer gw is refused and left as it is", async () => {
    const sql = new SQL({ url: pg.url, max: 1 });
    try {
      await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${PG_SCHEMA_VERSION + 1}, 'future', 0)`;
      await expect(migratePostgres(sql)).rejects.toBeInstanceOf(PgSchemaTooNew);
      await sql`DELETE FROM schema_migrations WHERE version = ${PG_SCHEMA_VERSION + 1}`;
    } finally {
      await sql.close();
    }
  });
});

describe("day partitions", () => {
  test("today's and tomorrow's are made once, rows land in their day, old days are dropped with their trace bytes", async () => {
    const sql = new SQL({ url: pg.url, max: 3 });
    try {
      const made = await Promise.all([ensurePartitions(sql, NOW - DAY), ensurePartitions(sql, NOW), ensurePartitions(sql, NOW)]);
      expect(made.flat().sort()).toEqual(["requests_p20261125", "requests_p20261126", "requests_p20261127", "traces_p20261125", "traces_p20261126", "traces_p20261127"]);
      expect(partitionName("traces", NOW)).toBe("traces_p20261126");
      const row = (id: string, at: number) => sql`INSERT INTO requests (id, project_id, trace_id, created_at, endpoint, status, latency_ms, tags)
        VALUES (${id}, 'p1', ${id}, ${at}, 'chat', 200, 5, ${sql.array(["a"], "TEXT")})`;
      await row("r-old", NOW - DAY);
      await row("r-now", NOW);
      await sql`INSERT INTO traces (project_id, request_id, created_at, data) VALUES ('p1', 'r-old', ${NOW - DAY}, ${"x".repeat(100)}), ('p1', 'r-now', ${NOW}, ${"y".repeat(40)})`;
      await sql`INSERT INTO trace_usage (project_id, bytes) VALUES ('p1', 140)`;
      const [inDay] = await sql`SELECT tableoid::regclass::text AS part FROM requests WHERE id = 'r-now'`;
      expect(inDay.part).toBe("requests_p20261126");
      // A day with no partition is refused rather than kept somewhere retention would miss.
      await expect(row("r-far", NOW + 9 * DAY)).rejects.toThrow(/no partition/);
      expect(await dropPartitionsBefore(sql, Date.UTC(2026, 10, 26))).toEqual(["requests_p20261125", "traces_p20261125"]);
      const ids = (await sql`SELECT id FROM requests ORDER BY id`).map((r: { id: string }) => r.id);
      expect(ids).toEqual(["r-now"]);
      const [usage] = await sql`SELECT bytes::int AS b FROM trace_usage WHERE project_id = 'p1'`;
      expect(usage.b).toBe(40);
    } finally {
      await sql.close();
    }
  });
});

describe("bounded calls", () => {
  test("a statement past the bound and an unreachable server are StoreUnavailable", async () => {
    const live = openPostgres(pg.url, { timeoutMs: 300 });
    try {
      expect(await bounded(live, "probe", async () => (await live.sql`SELECT 1::int AS one`)[0].one)).toBe(1);
      const slow = bounded(live, "sleep", () => live.sql`SELECT pg_sleep(5)`);
      await expect(slow).rejects.toBeInstanceOf(StoreUnavailable);
      // Other errors stay what they are: a bug is not an outage.
      await expect(bounded(live, "bad", () => live.sql`SELECT * FROM no_such_table`)).rejects.not.toBeInstanceOf(StoreUnavailable);
    } finally {
      await live.close();
    }
    const closedPort = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closedPort.port;
    closedPort.stop(true);
    const down = openPostgres(pg.url.replace(/:\d+\//, `:${port}/`), { timeoutMs: 1000 });
    try {
      const err = await bounded(down, "reserve", () => down.sql`SELECT 1`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailable);
      expect(String(err)).toContain("PostgreSQL unavailable (reserve)");
    } finally {
      await down.close();
    }
  });
});
