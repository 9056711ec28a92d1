// The request log store contract against the single-node store: today's requests repo on a SQLite
// data directory, as the log worker writes it.
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { sqliteLogStore } from "../../src/store/log-store.ts";
import { metricsRepo } from "../../src/store/repos/metrics.ts";
import { requestsRepo } from "../../src/store/repos/requests.ts";
import { type LogHarness, requestLogContract } from "./contract/request-log.contract.ts";

const opened: Array<{ db: Database; dir: string }> = [];
afterAll(() => {
  for (const o of opened) o.db.close(), rmSync(o.dir, { recursive: true, force: true });
});

async function make(): Promise<LogHarness> {
  const dir = mkdtempSync(join(tmpdir(), "gw-log-store-"));
  const db = openDatabase(dir);
  opened.push({ db, dir });
  const count = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM requests WHERE project_id = ?");
  return {
    store: sqliteLogStore(requestsRepo(db), metricsRepo(db)),
    async poison(id) {
      // An integer overflow: an SQLite error that is not a constraint, raised mid-transaction.
      db.run(`CREATE TEMP TRIGGER poison BEFORE INSERT ON requests WHEN NEW.id = '${id}' BEGIN SELECT abs(-9223372036854775808); END`);
    },
    async heal() {
      db.run("DROP TRIGGER temp.poison");
    },
    count: async (projectId) => count.get(projectId)?.n ?? 0,
  };
}

requestLogContract("sqlite", make);
