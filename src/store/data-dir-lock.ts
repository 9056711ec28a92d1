// One server per data directory (docs/availability.md "One owner"): an exclusive SQLite lock on
// <data>/gw.lock for the server's life, dropped by the kernel when the process dies (kill -9 too);
// offline CLI commands do not take it.
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const LOCK_FILE = "gw.lock";
const PID_FILE = "gw.pid";

export class DataDirInUse extends Error {
  constructor(readonly dataDir: string, readonly holderPid: number | null) {
    super(
      `The data directory ${dataDir} is in use by another gw server${holderPid ? ` (pid ${holderPid})` : ""}. ` +
        "Stop it first, or give this one another directory with --data or GW_DATA_DIR.",
    );
  }
}

export interface DataDirLock {
  release(): void;
}

function readPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, PID_FILE), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the directory's lock or throws DataDirInUse; never waits. */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, LOCK_FILE), { create: true });
  try {
    db.run("PRAGMA busy_timeout = 0");
    // EXCLUSIVE locking mode keeps the lock after the transaction until the connection closes;
    // a rollback journal (not WAL) makes it a plain POSIX lock on the file.
    db.run("PRAGMA journal_mode = DELETE");
    db.run("PRAGMA locking_mode = EXCLUSIVE");
    db.run("BEGIN EXCLUSIVE");
    db.run("CREATE TABLE IF NOT EXISTS owner (pid INTEGER)");
    // A write, always: only a written database keeps its exclusive lock after COMMIT.
    db.run("DELETE FROM owner");
    db.run("INSERT INTO owner (pid) VALUES (?)", [process.pid]);
    db.run("COMMIT");
  } catch (err) {
    db.close();
    if (String(err).includes("locked") || String(err).includes("busy")) throw new DataDirInUse(dataDir, readPid(dataDir));
    throw err;
  }
  writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n`);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      if (readPid(dataDir) === process.pid) rmSync(join(dataDir, PID_FILE), { force: true });
      db.close();
    },
  };
}
