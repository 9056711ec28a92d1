// PostgreSQL migrations, imported as text so they travel inside the compiled binary, applied under a
// session advisory lock, one transaction each, recorded in schema_migrations (docs/scale-out.md
// "PostgreSQL"): instances starting at once apply each migration exactly once.
import m001 from "./migrations/001_core.sql" with { type: "text" };
import m002 from "./migrations/002_log.sql" with { type: "text" };
import m003 from "./migrations/003_monitoring.sql" with { type: "text" };
import m004 from "./migrations/004_rollup_counts.sql" with { type: "text" };
import m005 from "./migrations/005_leader.sql" with { type: "text" };
import m006 from "./migrations/006_money_functions.sql" with { type: "text" };
import m007 from "./migrations/007_log_functions.sql" with { type: "text" };
import m008 from "./migrations/008_log_settles.sql" with { type: "text" };
import m009 from "./migrations/009_webhook_claims.sql" with { type: "text" };
import m010 from "./migrations/010_alerts_status.sql" with { type: "text" };
import m011 from "./migrations/011_feedback_sums.sql" with { type: "text" };
import m013 from "./migrations/013_rollup_hours.sql" with { type: "text" };
import m014 from "./migrations/014_semantic_vectors.sql" with { type: "text" };
import m015 from "./migrations/015_deferred_traces.sql" with { type: "text" };
import type { SQL } from "bun";

/** Append only: a migration, once released, never changes. */
export const PG_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  { version: 1, name: "001_core", sql: m001 },
  { version: 2, name: "002_log", sql: m002 },
  { version: 3, name: "003_monitoring", sql: m003 },
  { version: 4, name: "004_rollup_counts", sql: m004 },
  { version: 5, name: "005_leader", sql: m005 },
  { version: 6, name: "006_money_functions", sql: m006 },
  { version: 7, name: "007_log_functions", sql: m007 },
  { version: 8, name: "008_log_settles", sql: m008 },
  { version: 9, name: "009_webhook_claims", sql: m009 },
  { version: 10, name: "010_alerts_status", sql: m010 },
  { version: 11, name: "011_feedback_sums", sql: m011 },
  { version: 13, name: "013_rollup_hours", sql: m013 },
  { version: 14, name: "014_semantic_vectors", sql: m014 },
  { version: 15, name: "015_deferred_traces", sql: m015 },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.at(-1)?.version ?? 0;

/** pg_advisory_lock key of the migration runner ("gw" and 1 in its bytes). */
export const MIGRATION_LOCK = 0x67770001;

export class PgSchemaTooNew extends Error {
  constructor(found: number) {
    super(`The PostgreSQL database has schema version ${found}, newer than this gw knows (${PG_SCHEMA_VERSION}): a newer gw has upgraded it. Run that gw (or a newer one). Nothing was changed.`);
  }
}

/** Applies the migrations not applied yet; returns the versions this call applied. */
export async function migratePostgres(sql: SQL): Promise<number[]> {
  const conn = await sql.reserve();
  const done: number[] = [];
  try {
    // A session lock on this one connection: a second runner waits here until the first is done,
    // then finds every version recorded.
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      await conn`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`;
      const applied = new Set<number>((await conn`SELECT version FROM schema_migrations`).map((r: { version: number }) => Number(r.version)));
      const newest = Math.max(0, ...applied);
      if (newest > PG_SCHEMA_VERSION) throw new PgSchemaTooNew(newest);
      // Every version not recorded, in order: a database that got a later version first (numbers
      // reserved while their work was under way) still gets the earlier ones.
      for (const m of PG_MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await conn.begin(async (tx) => {
          await tx.unsafe(m.sql);
          await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${Date.now()})`;
        });
        done.push(m.version);
      }
    } finally {
      // A broken connection has lost the lock already; the migration's own error is the one to see.
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => undefined);
    }
  } finally {
    conn.release();
  }
  return done;
}
