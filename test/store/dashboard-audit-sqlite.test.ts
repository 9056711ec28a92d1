// The dashboard sessions' and audit log's contracts against the single-node stores: today's repos on
// a SQLite data directory; a second handle on the same file stands for another reader.
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { auditLogRepo } from "../../src/store/repos/audit-log.ts";
import { dashboardSessionsRepo } from "../../src/store/repos/dashboard-sessions.ts";
import { auditLogContract } from "./contract/audit-log.contract.ts";
import { dashboardSessionsContract } from "./contract/dashboard-sessions.contract.ts";

const opened: Array<{ dbs: Database[]; dir: string }> = [];
afterAll(() => {
  for (const o of opened) {
    for (const db of o.dbs) db.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function twoHandles(): [Database, Database] {
  const dir = mkdtempSync(join(tmpdir(), "gw-dash-store-"));
  const dbs: [Database, Database] = [openDatabase(dir), openDatabase(dir)];
  opened.push({ dbs, dir });
  return dbs;
}

dashboardSessionsContract("sqlite", async () => {
  const [a, b] = twoHandles();
  return { store: dashboardSessionsRepo(a), other: dashboardSessionsRepo(b) };
});

auditLogContract("sqlite", async () => {
  const [a, b] = twoHandles();
  return { store: auditLogRepo(a), other: auditLogRepo(b), dump: async () => JSON.stringify(a.query("SELECT * FROM audit_log").all()) };
});
