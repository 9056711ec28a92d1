// The SSO clients' store contract against the single-node repo on a SQLite data directory; a second
// handle on the same file stands for another process.
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { projectSsoRepo } from "../../src/store/repos/project-sso.ts";
import { type ProjectSsoHarness, projectSsoContract } from "./contract/project-sso.contract.ts";

const opened: Array<{ dbs: Database[]; dir: string }> = [];
afterAll(() => {
  for (const o of opened) {
    for (const db of o.dbs) db.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

async function make(): Promise<ProjectSsoHarness> {
  const dir = mkdtempSync(join(tmpdir(), "gw-sso-"));
  const entry = { dbs: [openDatabase(dir)], dir };
  opened.push(entry);
  return {
    store: projectSsoRepo(entry.dbs[0]!),
    fresh() {
      const db = openDatabase(dir);
      entry.dbs.push(db);
      return projectSsoRepo(db);
    },
  };
}

projectSsoContract("sqlite", make);
