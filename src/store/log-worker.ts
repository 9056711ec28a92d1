// The log worker thread (docs/observability.md "Rollups, not scans"): its own SQLite connection
// writes log batches and rollups off the request path, with maintenance between them. On `close`
// it writes every batch sent, checkpoints the WAL and closes: the file alone is a whole backup.
import { Database } from "bun:sqlite";
import { decodeLogBatch } from "./log-batch-codec.ts";
import { logMaintenance, type MaintenanceOptions } from "./log-maintenance.ts";
import { cacheEntriesRepo, type CacheWrite } from "./repos/cache-entries.ts";
import { ledgerRepo, type LedgerEntry } from "./repos/ledger.ts";
import { requestsRepo } from "./repos/requests.ts";

declare const self: Worker;

export type LogWorkerRequest =
  | { type: "open"; file: string }
  /** `batch`: the rows, encoded once by the request thread (log-batch-codec.ts). */
  | { type: "insert"; id: number; batch: string }
  /** The response cache's queued writes as JSON `{ writes, lastId }` (src/cache/write-queue.ts):
   * written here so the request thread never takes SQLite's write lock. */
  | { type: "cache"; id: number; batch: string }
  /** Ledger entries the request thread queued (holds, releases, charges no log row carried), as
   * a JSON array (src/billing/ledger-writer.ts). */
  | { type: "ledger"; id: number; batch: string }
  /** Starts (or restarts with new options) rollup compaction and retention on a timer. */
  | { type: "maintain"; options: Omit<MaintenanceOptions, "now" | "onError"> }
  /** The per-project trace budget in characters (GW_PROJECT_LOG_MB; 0: none). */
  | { type: "budget"; traceBytes: number }
  /** Last message: checkpoint, close the connection, answer `closed`. */
  | { type: "close" }
  /** The server is idle after a burst: a full collection of this thread's heap too. */
  | { type: "collect" };

/** `rejected`: ids of rows that violate a constraint, dropped so they cannot stall the log.
 * `maintenanceError`: a maintenance pass failed (it is retried at the next pass). */
export type LogWorkerReply =
  | { id: number; ok: true; rejected: string[] }
  | { id: number; ok: false; error: string }
  | { maintenanceError: string }
  | { closed: true; error?: string };

/** The error as text with SQLite's code (SQLITE_FULL...), which the main thread's storage health reads. */
const describe = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
};

let repo: ReturnType<typeof requestsRepo> | null = null;
let cache: ReturnType<typeof cacheEntriesRepo> | null = null;
let ledger: ReturnType<typeof ledgerRepo> | null = null;
let db: Database | null = null;
let maintenance: { stop(): void } | null = null;

self.onmessage = (event: MessageEvent<LogWorkerRequest>) => {
  const msg = event.data;
  if (msg.type === "open") {
    // The main thread has created and migrated the database before starting this worker.
    db = new Database(msg.file, { strict: true });
    db.run("PRAGMA busy_timeout = 5000");
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    // Fewer, larger checkpoints: interior B-tree pages rewritten by many batches are copied once.
    db.run("PRAGMA wal_autocheckpoint = 4000");
    repo = requestsRepo(db);
    cache = cacheEntriesRepo(db);
    ledger = ledgerRepo(db);
    return;
  }
  if (msg.type === "maintain") {
    maintenance?.stop();
    if (!db || !repo) return;
    maintenance = logMaintenance(db, { requests: repo }).start({
      ...msg.options,
      onError: (err) => self.postMessage({ maintenanceError: err instanceof Error ? err.message : String(err) } satisfies LogWorkerReply),
    });
    return;
  }
  if (msg.type === "collect") {
    Bun.gc(true);
    Bun.shrink();
    return;
  }
  if (msg.type === "budget") {
    repo?.setTraceBudget(msg.traceBytes);
    return;
  }
  if (msg.type === "close") {
    maintenance?.stop();
    maintenance = null;
    let error: string | undefined;
    try {
      db?.run("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch (err) {
      error = describe(err);
    }
    db?.close(false);
    db = null;
    repo = null;
    cache = null;
    ledger = null;
    self.postMessage({ closed: true, ...(error ? { error } : {}) } satisfies LogWorkerReply);
    return;
  }
  let reply: LogWorkerReply;
  try {
    if (!repo || !cache || !ledger) throw new Error("log worker has no database open");
    if (msg.type === "ledger") {
      ledger.appendMany(JSON.parse(msg.batch) as LedgerEntry[]);
      reply = { id: msg.id, ok: true, rejected: [] };
    } else if (msg.type === "cache") {
      const { writes, lastId } = JSON.parse(msg.batch) as { writes: CacheWrite[]; lastId: number };
      cache.write(writes, lastId);
      reply = { id: msg.id, ok: true, rejected: [] };
    } else {
      reply = { id: msg.id, ok: true, rejected: repo.insertPrepared(decodeLogBatch(msg.batch)) };
    }
  } catch (err) {
    reply = { id: msg.id, ok: false, error: describe(err) };
  }
  self.postMessage(reply);
};
