// The log worker thread: its own SQLite connection to the data directory's database, writing the
// request-log batches the main thread sends, so inserts never run on the request path.
import { Database } from "bun:sqlite";
import { decodeLogBatch } from "./log-batch-codec.ts";
import { requestsRepo } from "./repos/requests.ts";

declare const self: Worker;

export type LogWorkerRequest =
  | { type: "open"; file: string }
  /** `batch`: the rows, encoded once by the request thread (log-batch-codec.ts). */
  | { type: "insert"; id: number; batch: string };

/** `rejected`: ids of rows that violate a constraint, dropped so they cannot stall the log. */
export type LogWorkerReply = { id: number; ok: true; rejected: string[] } | { id: number; ok: false; error: string };

let repo: ReturnType<typeof requestsRepo> | null = null;

self.onmessage = (event: MessageEvent<LogWorkerRequest>) => {
  const msg = event.data;
  if (msg.type === "open") {
    // The main thread has created and migrated the database before starting this worker.
    const db = new Database(msg.file, { strict: true });
    db.run("PRAGMA busy_timeout = 5000");
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    // Fewer, larger checkpoints: interior B-tree pages rewritten by many batches are copied once.
    db.run("PRAGMA wal_autocheckpoint = 4000");
    repo = requestsRepo(db);
    return;
  }
  let reply: LogWorkerReply;
  try {
    if (!repo) throw new Error("log worker has no database open");
    reply = { id: msg.id, ok: true, rejected: repo.insertPrepared(decodeLogBatch(msg.batch)) };
  } catch (err) {
    reply = { id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
