// Numbered SQL migrations, imported as text so they travel inside the compiled binary; a database
// newer than them is refused, and what was applied is kept for the server's log (docs/deploy.md "Upgrades").
import type { Database } from "bun:sqlite";
import m001 from "./migrations/001_init.sql" with { type: "text" };
import m002 from "./migrations/002_provider_keys.sql" with { type: "text" };
import m003 from "./migrations/003_idempotency.sql" with { type: "text" };
import m004 from "./migrations/004_cache.sql" with { type: "text" };
import m005 from "./migrations/005_metrics.sql" with { type: "text" };
import m006 from "./migrations/006_feedback.sql" with { type: "text" };
import m007 from "./migrations/007_billing.sql" with { type: "text" };
import m008 from "./migrations/008_trace_usage.sql" with { type: "text" };
import m009 from "./migrations/009_request_filters.sql" with { type: "text" };
import m010 from "./migrations/010_audit_sessions_sso.sql" with { type: "text" };
import m011 from "./migrations/011_model_rollups.sql" with { type: "text" };
import m012 from "./migrations/012_monitoring.sql" with { type: "text" };

/** Append only: a migration, once released, never changes. */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  { version: 1, name: "001_init", sql: m001 },
  { version: 2, name: "002_provider_keys", sql: m002 },
  { version: 3, name: "003_idempotency", sql: m003 },
  { version: 4, name: "004_cache", sql: m004 },
  { version: 5, name: "005_metrics", sql: m005 },
  { version: 6, name: "006_feedback", sql: m006 },
  { version: 7, name: "007_billing", sql: m007 },
  { version: 8, name: "008_trace_usage", sql: m008 },
  { version: 9, name: "009_request_filters", sql: m009 },
  { version: 10, name: "010_audit_sessions_sso", sql: m010 },
  { version: 11, name: "011_model_rollups", sql: m011 },
  { version: 12, name: "012_monitoring", sql: m012 },
];

/** The newest schema this build knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** The database was last migrated by a newer gw: this one would not know its tables. */
export class SchemaTooNew extends Error {
  constructor(file: string, found: number) {
    super(`The database ${file} has schema version ${found}, newer than this gw knows (${SCHEMA_VERSION}): a newer gw has upgraded it. ` +
      "Run that gw (or a newer one), or restore the backup taken before the upgrade (docs/deploy.md \"Upgrades\"). Nothing was changed.");
  }
}

export interface AppliedMigration {
  version: number;
  name: string;
  ms: number;
}

/** Migrations applied in this process, by database file, until the server takes them for its log
 * (the database is opened before the logger is at hand). Bounded: tests open many directories. */
const applied = new Map<string, AppliedMigration[]>();
const MAX_FILES = 64;

/** The migrations applied to `file` since the last call, oldest first. */
export function takeAppliedMigrations(file: string): AppliedMigration[] {
  const list = applied.get(file) ?? [];
  applied.delete(file);
  return list;
}

export function migrate(db: Database): number {
  db.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const newest = db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM schema_migrations").get()?.v ?? 0;
  if (newest > SCHEMA_VERSION) throw new SchemaTooNew(db.filename, newest);
  const isApplied = db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM schema_migrations WHERE version = ?");
  // Each migration is checked and applied under one write lock (IMMEDIATE), so two processes
  // opening a new data directory at once (the server and the CLI) cannot both apply it.
  const apply = db.transaction((version: number, sql: string): boolean => {
    if ((isApplied.get(version)?.n ?? 0) > 0) return false;
    db.run(sql);
    db.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [version, Date.now()]);
    return true;
  });
  const done: AppliedMigration[] = [];
  for (const { version, name, sql } of MIGRATIONS) {
    const started = performance.now();
    if (apply.immediate(version, sql)) done.push({ version, name, ms: Math.round(performance.now() - started) });
  }
  if (done.length > 0 && db.filename !== ":memory:" && db.filename !== "") {
    const oldest = applied.keys().next();
    if (applied.size >= MAX_FILES && !applied.has(db.filename) && !oldest.done) applied.delete(oldest.value);
    applied.set(db.filename, [...(applied.get(db.filename) ?? []), ...done]);
  }
  return done.length;
}
