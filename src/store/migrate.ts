// Numbered SQL migrations, imported as text so they travel inside the compiled binary.
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
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  { version: 1, sql: m001 },
  { version: 2, sql: m002 },
  { version: 3, sql: m003 },
  { version: 4, sql: m004 },
  { version: 5, sql: m005 },
  { version: 6, sql: m006 },
  { version: 7, sql: m007 },
  { version: 8, sql: m008 },
  { version: 9, sql: m009 },
  { version: 10, sql: m010 },
  { version: 11, sql: m011 },
  { version: 12, sql: m012 },
];

export function migrate(db: Database): number {
  db.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const isApplied = db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM schema_migrations WHERE version = ?");
  // Each migration is checked and applied under one write lock (IMMEDIATE), so two processes
  // opening a new data directory at once (the server and the CLI) cannot both apply it.
  const apply = db.transaction((version: number, sql: string): boolean => {
    if ((isApplied.get(version)?.n ?? 0) > 0) return false;
    db.run(sql);
    db.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [version, Date.now()]);
    return true;
  });
  let count = 0;
  for (const { version, sql } of MIGRATIONS) if (apply.immediate(version, sql)) count++;
  return count;
}
