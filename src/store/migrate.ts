// Numbered SQL migrations, imported as text so they travel inside the compiled binary.
import type { Database } from "bun:sqlite";
import m001 from "./migrations/001_init.sql" with { type: "text" };

/** Append only: a migration, once released, never changes. */
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [{ version: 1, sql: m001 }];

export function migrate(db: Database): number {
  db.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set(
    db.query<{ version: number }, []>("SELECT version FROM schema_migrations").all().map((r) => r.version),
  );
  let count = 0;
  for (const { version, sql } of MIGRATIONS) {
    if (applied.has(version)) continue;
    db.transaction(() => {
      db.run(sql);
      db.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [version, Date.now()]);
    })();
    count++;
  }
  return count;
}
