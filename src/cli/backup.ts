// `gw backup DIR` (docs/running.md "Backup"): a consistent copy of the database made with SQLite's
// VACUUM INTO, safe while gw serves (readers never block the writer), plus secret.key when present.
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SECRET_KEY_FILE } from "../lib/secret-box.ts";
import { DB_FILE } from "../store/db.ts";

export interface BackupResult {
  object: "backup";
  dir: string;
  files: Array<{ path: string; bytes: number }>;
}

export function backupDataDir(dataDir: string, target: string): BackupResult {
  const source = join(dataDir, DB_FILE);
  const dir = resolve(target);
  if (!existsSync(source)) throw new Error(`No database at ${source}: nothing to back up (is --data or GW_DATA_DIR right?).`);
  if (dir === resolve(dataDir)) throw new Error("The backup directory must not be the data directory itself.");
  const copy = join(dir, DB_FILE);
  if (existsSync(copy)) throw new Error(`${copy} already exists: back up into an empty or new directory.`);
  mkdirSync(dir, { recursive: true });
  // Written aside and renamed: an interrupted backup never leaves a gw.sqlite that looks whole.
  const partial = `${copy}.partial-${process.pid}`;
  const db = new Database(source, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.run("VACUUM INTO ?", [partial]);
    renameSync(partial, copy);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
  const files = [{ path: copy, bytes: statSync(copy).size }];
  // Sealed provider keys, webhook and SSO secrets open only with it (unless GW_SECRET_KEY is set).
  const key = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(key)) {
    const keyCopy = join(dir, SECRET_KEY_FILE);
    copyFileSync(key, keyCopy);
    chmodSync(keyCopy, 0o600);
    files.push({ path: keyCopy, bytes: statSync(keyCopy).size });
  }
  return { object: "backup", dir, files };
}
