// Opens the embedded SQLite database in the data directory (WAL, foreign keys) and migrates it.
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "./migrate.ts";

export const DB_FILE = "gw.sqlite";

export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DB_FILE), { create: true, strict: true });
  // First, so that every statement below (journal_mode needs a lock) waits for another
  // connection (the CLI, the log worker) instead of failing with "database is locked".
  db.run("PRAGMA busy_timeout = 5000");
  // Traces are 1-2 KB: just over half of a 4 KiB page, so only one fitted per page and half of
  // every page stayed empty. 8 KiB pages hold three. Takes effect when the file is created.
  db.run("PRAGMA page_size = 8192");
  db.run("PRAGMA journal_mode = WAL");
  // NORMAL with WAL is durable across process crashes; an acknowledged commit survives a restart.
  db.run("PRAGMA synchronous = NORMAL");
  db.run("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}
