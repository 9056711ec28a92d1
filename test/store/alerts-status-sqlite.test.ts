// The alert store and status posts contracts against SQLite (a data directory per harness).
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { alertRulesRepo, sqliteAlertRulesStore } from "../../src/store/repos/alert-rules.ts";
import { incidentsRepo, sqliteIncidentsStore } from "../../src/store/repos/incidents.ts";
import { sqliteStatusPostsStore, statusPostsRepo } from "../../src/store/repos/status-posts.ts";
import { alertStoreContract } from "./contract/alert-store.contract.ts";
import { statusPostsContract } from "./contract/status-posts.contract.ts";

const opened: Array<{ db: Database; dir: string }> = [];
afterAll(() => {
  for (const o of opened) {
    o.db.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function db(): Database {
  const dir = mkdtempSync(join(tmpdir(), "gw-alerts-"));
  const entry = { db: openDatabase(dir), dir };
  opened.push(entry);
  return entry.db;
}

alertStoreContract("sqlite", () => {
  const d = db();
  return { rules: sqliteAlertRulesStore(alertRulesRepo(d)), incidents: sqliteIncidentsStore(incidentsRepo(d)) };
});
statusPostsContract("sqlite", () => sqliteStatusPostsStore(statusPostsRepo(db())));
