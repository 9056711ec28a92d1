// The multi-instance mode's log sink (docs/scale-out.md "Request log and metrics"): batches go to
// PostgreSQL's request log with the charges their rows carry (one call); no log worker, no maintenance
// (the leader's), no other ledger rows, and cache batches are written to this instance's SQLite directly.
import { decodeLogBatch, type PreparedRow } from "./log-batch-codec.ts";
import type { RequestLogStore } from "./log-store.ts";
import type { ThreadFallback, WorkerLogSink } from "./log-worker-sink.ts";
import type { LogWriter } from "./log-writer.ts";
import { isCarriedSettle } from "./postgres/request-log.ts";

export interface SharedSinkEvents {
  /** Ids of rows that break a constraint: dropped, so they cannot stall the log. */
  rejected(ids: string[]): void;
  /** Ledger entries handed to this instance (on a row or by the ledger writer): never written
   * here, since a charge in one instance's SQLite would be invisible to the others. */
  strayLedger(entries: number): void;
}

/** Takes every ledger entry but the carried charges off the rows; how many were taken. */
function keepCarried(rows: PreparedRow[]): number {
  let stray = 0;
  for (const r of rows) {
    if (r.ledger === undefined) continue;
    const kept = r.ledger.filter(isCarriedSettle);
    stray += r.ledger.length - kept.length;
    if (kept.length > 0) r.ledger = kept;
    else delete r.ledger;
  }
  return stray;
}

/** Decodes and writes one batch; a failure rejects, so the writer keeps the rows and retries them. */
async function writeText(store: RequestLogStore, text: string, events: SharedSinkEvents): Promise<number> {
  const rows = decodeLogBatch(text);
  const stray = keepCarried(rows);
  if (stray > 0) events.strayLedger(stray);
  const rejected = await store.writeBatch(rows);
  if (rejected.length > 0) events.rejected(rejected);
  return rejected.length;
}

export function sharedLogSink(store: RequestLogStore, cache: ThreadFallback["cache"], events: SharedSinkEvents): WorkerLogSink {
  return {
    insertBatch: async (batch) => void (await writeText(store, batch, events)),
    writeCache: (writes, lastId) => cache(writes, lastId),
    writeLedger(entries) {
      if (entries.length > 0) events.strayLedger(entries.length);
    },
    traceBudget: (bytes) => store.setTraceBudget(bytes),
    maintain: () => {},
    collect: () => {},
    close: async () => {},
  };
}

/** A stop's drain in the multi-instance mode: everything queued is written within `ms` (a failed
 * batch is retried meanwhile), then what is left gets one last bounded try. Returns the rows not
 * known to be written: those lost, and any batch still in flight when the time ran out. */
export async function drainToShared(writer: LogWriter, store: RequestLogStore, ms: number,
  events: SharedSinkEvents & { lost(err: unknown, rows: number): void; tracesLeft(): void }): Promise<number> {
  const start = performance.now();
  const lost = await drainRows(writer, store, ms, events);
  // Traces follow their rows (postgres/trace-writer.ts): given what is left of the same bound.
  const rest = Math.max(0, ms - (performance.now() - start));
  if (store.flushTraces && !(await store.flushTraces(rest))) events.tracesLeft();
  return lost;
}

async function drainRows(writer: LogWriter, store: RequestLogStore, ms: number, events: SharedSinkEvents & { lost(err: unknown, rows: number): void }): Promise<number> {
  if (await writer.drainWithin(ms)) return 0;
  const rest = writer.takeQueued();
  let lost = 0;
  if (rest.text) {
    try {
      lost = await writeText(store, rest.text, events);
      for (const c of rest.charges ?? []) c.committed();
    } catch (err) {
      events.lost(err, rest.rows);
      lost = rest.rows;
      for (const c of rest.charges ?? []) c.notCarried();
    }
  }
  return lost + writer.pending;
}
