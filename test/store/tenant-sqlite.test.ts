// The tenant stores' contract against the single-node implementation: today's repos on a SQLite data
// directory; a second handle on the same file stands for a fresh read.
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { sqliteTenantStores } from "../../src/store/tenant-sqlite.ts";
import { type TenantHarness, tenantContract } from "./contract/tenant.contract.ts";

const opened: Array<{ dbs: Database[]; dir: string }> = [];
afterAll(() => {
  for (const o of opened) {
    for (const db of o.dbs) db.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

async function make(): Promise<TenantHarness> {
  const dir = mkdtempSync(join(tmpdir(), "gw-tenant-"));
  const entry = { dbs: [openDatabase(dir)], dir };
  opened.push(entry);
  return {
    stores: sqliteTenantStores(entry.dbs[0]!),
    fresh() {
      const db = openDatabase(dir);
      entry.dbs.push(db);
      return sqliteTenantStores(db);
    },
  };
}

tenantContract("sqlite", make);
