// A clean stop leaves the database file whole (docs/availability.md "Storage"): the log worker and
// the main connection checkpoint and close, so no -wal file remains and a copy of gw.sqlite alone
// (a backup) holds every answered request; a restart reads them back.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueKey } from "../../src/auth/api-keys.ts";
import { createProject } from "../../src/admin/projects.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps, closeStorage } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { DB_FILE } from "../../src/store/db.ts";
import { post } from "../helpers/test-gw.ts";

const config = (dataDir: string) => loadConfig({ port: "0", data: dataDir }, { GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1" });
const silent = () => createLogger("silent");

function rowsInFileAlone(dataDir: string): number {
  const backup = mkdtempSync(join(tmpdir(), "gw-backup-"));
  try {
    copyFileSync(join(dataDir, DB_FILE), join(backup, DB_FILE));
    const db = new Database(join(backup, DB_FILE), { readonly: true });
    const n = db.query<{ n: number }, []>("SELECT count(*) AS n FROM requests").get()!.n;
    db.close();
    return n;
  } finally {
    rmSync(backup, { recursive: true, force: true });
  }
}

const walBytes = (dataDir: string): number => {
  const wal = join(dataDir, `${DB_FILE}-wal`);
  return existsSync(wal) ? statSync(wal).size : 0;
};

describe("clean stop: checkpointed WAL, closed connections", () => {
  test("after server.stop() the -wal is empty or gone and gw.sqlite alone has every row", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-close-"));
    try {
      const c = config(dataDir);
      const deps = buildDeps(c, { logger: silent() });
      const projectId = createProject(deps.repos.projects, { name: "close" }).id;
      const key = issueKey(deps.repos.apiKeys, { projectId, scopes: null, mode: "test" }).secret;
      const server = startServer(c, { deps, quiet: true });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
        post(`${server.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `row ${i}` }] })));
      expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
      // Rows are in the WAL before the stop (the worker commits there).
      await deps.logWriter.drain();
      expect(walBytes(dataDir)).toBeGreaterThan(0);
      await server.stop();
      expect(walBytes(dataDir)).toBe(0);
      expect(rowsInFileAlone(dataDir)).toBe(30);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("closeStorage(deps) writes queued rows and ledger entries, checkpoints and closes", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-close-"));
    try {
      const deps = buildDeps(config(dataDir), { logger: silent() });
      const projectId = createProject(deps.repos.projects, { name: "close" }).id;
      deps.billing.writer.append({ projectId, kind: "credit", amount: 5, createdAt: Date.now() });
      const left = await closeStorage(deps);
      expect(left).toEqual({ rows: 0, ledger: 0 });
      expect(walBytes(dataDir)).toBe(0);
      const db = new Database(join(dataDir, DB_FILE), { readonly: true });
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM ledger").get()!.n).toBe(1);
      db.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
