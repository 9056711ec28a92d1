// A LogSink backed by the log worker thread: a batch crosses as one string (log-batch-codec.ts) and
// resolves when committed. A worker that dies is replaced, and its unanswered batches fail so the
// LogWriter retries them.
import type { LogSink } from "./log-writer.ts";
import type { CacheWrite } from "./repos/cache-entries.ts";
import type { LedgerEntry } from "./repos/ledger.ts";
import type { LogWorkerReply, LogWorkerRequest } from "./log-worker.ts";

export interface WorkerLogSink extends LogSink {
  /** Starts the worker now and runs the log's maintenance in it (rollup compaction, retention);
   * a worker that replaces a failed one is asked again. */
  maintain(options: MaintenanceRequest["options"]): void;
  /** The per-project trace budget the worker applies (and a worker that replaces it). */
  traceBudget(bytes: number): void;
  close(deadlineMs?: number): Promise<void>;
  /** A full collection in the worker's own heap (the idle collector, docs/availability.md). */
  collect(): void;
  /** The response cache's batch, written in the worker after every log batch sent before it;
   * resolves once committed (on this thread, synchronously, when the worker is given up on). */
  writeCache(writes: CacheWrite[], lastId: number): void | Promise<void>;
  /** Ledger entries (the ledger writer's batch), likewise in order with the log's batches. */
  writeLedger(entries: LedgerEntry[]): void | Promise<void>;
}

/** Write on this thread, when the worker cannot run (or was closed): the repos. */
export interface ThreadFallback {
  cache(writes: CacheWrite[], lastId: number): void;
  ledger(entries: LedgerEntry[]): void;
}

const noFallback: ThreadFallback = {
  cache: () => {
    throw new Error("the log worker is unavailable and no cache writer was given");
  },
  ledger: () => {
    throw new Error("the log worker is unavailable and no ledger writer was given");
  },
};

type MaintenanceRequest = Extract<LogWorkerRequest, { type: "maintain" }>;

type Pending = { resolve: () => void; reject: (err: Error) => void };

/** From source the worker sits beside this file. In `dist/gw` every module's URL is the binary's
 * and the worker is embedded under the bundle root (src/), as `store/log-worker.ts`. */
const workerUrl = (): string =>
  import.meta.url.includes("/$bunfs/")
    ? new URL("./store/log-worker.ts", import.meta.url).href
    : new URL("./log-worker.ts", import.meta.url).href;

/** A worker that fails this many times in a row without committing anything is given up on. */
const MAX_WORKER_FAILURES = 3;
/** How long close waits for the worker's last batches, checkpoint and close. */
const CLOSE_LIMIT_MS = 5_000;

export function workerLogSink(
  dbFile: string,
  onWorkerError: (err: unknown) => void,
  fallback: LogSink,
  url: string = workerUrl(),
  onThread: ThreadFallback = noFallback,
): WorkerLogSink {
  const pending = new Map<number, Pending>();
  let seq = 0;
  let worker: Worker | null = null;
  let failuresInARow = 0;
  let useFallback = false;
  let maintenance: MaintenanceRequest | null = null;
  let onClosed: (() => void) | null = null;
  let budget: Extract<LogWorkerRequest, { type: "budget" }> | null = null;
  let closing = false;

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  const start = (): Worker => {
    const w = new Worker(url);
    w.onmessage = (event: MessageEvent<LogWorkerReply>) => {
      const reply = event.data;
      if ("closed" in reply) {
        if (reply.error) onWorkerError(new Error(`log worker checkpoint at close failed: ${reply.error}`));
        return onClosed?.();
      }
      if ("maintenanceError" in reply) return onWorkerError(new Error(`log maintenance failed: ${reply.maintenanceError}`));
      failuresInARow = 0;
      const p = pending.get(reply.id);
      pending.delete(reply.id);
      if (!reply.ok) return p?.reject(new Error(reply.error));
      // A row that breaks a constraint is a gw bug; it is reported loudly, not retried forever.
      if (reply.rejected.length > 0) onWorkerError(new Error(`request log rows rejected: ${reply.rejected.join(", ")}`));
      p?.resolve();
    };
    w.onerror = (event) => {
      onWorkerError(event.error ?? event.message);
      // The log must never stall: a worker that cannot run is replaced by in-thread writes.
      if (++failuresInARow >= MAX_WORKER_FAILURES && !useFallback) {
        useFallback = true;
        onWorkerError(new Error("log worker unavailable; writing the request log on the request thread"));
      }
      failAll(new Error("the log worker failed"));
      onClosed?.();
      w.terminate();
      if (worker === w) worker = null;
    };
    w.postMessage({ type: "open", file: dbFile } satisfies LogWorkerRequest);
    if (budget) w.postMessage(budget);
    if (maintenance) w.postMessage(maintenance);
    return w;
  };

  const send = (type: "insert" | "cache" | "ledger", batch: string): Promise<void> => {
    worker ??= start();
    const id = ++seq;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker!.postMessage({ type, id, batch } satisfies LogWorkerRequest);
    });
  };

  return {
    insertBatch(batch: string): void | Promise<void> {
      if (closing) return Promise.reject(new Error("the log worker was closed"));
      if (useFallback) return fallback.insertBatch(batch);
      return send("insert", batch);
    },
    writeCache(writes, lastId) {
      // After close (shutdown's last cache flush comes before it, but a late one may not), or
      // without a worker, the batch is written here.
      if (closing || useFallback) return onThread.cache(writes, lastId);
      return send("cache", JSON.stringify({ writes, lastId }));
    },
    writeLedger(entries) {
      // The billing service's last flush comes after the log worker is closed: written here.
      if (closing || useFallback) return onThread.ledger(entries);
      return send("ledger", JSON.stringify(entries));
    },
    traceBudget(bytes) {
      budget = { type: "budget", traceBytes: bytes };
      worker?.postMessage(budget);
    },
    collect() {
      worker?.postMessage({ type: "collect" } satisfies LogWorkerRequest);
    },
    maintain(options) {
      maintenance = { type: "maintain", options };
      if (useFallback) return;
      if (worker) worker.postMessage(maintenance);
      else worker = start();
    },
    /** Asks the worker to finish what it was sent, checkpoint and close its connection, within
     * `deadlineMs`; then ends the thread. Batches still unanswered fail (the writer keeps them). */
    async close(deadlineMs = CLOSE_LIMIT_MS) {
      const w = worker;
      worker = null;
      closing = true;
      if (w) {
        const closed = new Promise<void>((resolve) => (onClosed = resolve));
        w.postMessage({ type: "close" } satisfies LogWorkerRequest);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
        await Promise.race([closed, late]);
        clearTimeout(timer);
        w.terminate();
      }
      failAll(new Error("the log worker was closed"));
    },
  };
}
