// The multi-instance mode's log sink (docs/scale-out.md "Request log and metrics"): batches go to
// PostgreSQL's request log; no log worker, no maintenance (the leader's), no ledger rows (the
// money store commits charges), and cache batches are written to this instance's SQLite directly.
import { decodeLogBatch } from "./log-batch-codec.ts";
import type { RequestLogStore } from "./log-store.ts";
import type { ThreadFallback, WorkerLogSink } from "./log-worker-sink.ts";
import type { LogWriter } from "./log-writer.ts";
import { postgresLogSink, stripLedger } from "./postgres/log-sink.ts";

export interface SharedSinkEvents {
  /** Ids of rows that break a constraint: dropped, so they cannot stall the log. */
  rejected(ids: string[]): void;
  /** Ledger entries handed to this instance (on a row or by the ledger writer): never written
   * here, since a charge in one instance's SQLite would be invisible to the others. */
  strayLedger(entries: number): void;
}

export function sharedLogSink(store: RequestLogStore, cache: ThreadFallback["cache"], events: SharedSinkEvents): WorkerLogSink {
  const rows = postgresLogSink(store, events.rejected, events.strayLedger);
  return {
    insertBatch: (batch) => rows.insertBatch(batch),
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
export async function drainToShared(writer: LogWriter, store: RequestLogStore, ms: number, events: SharedSinkEvents & { lost(err: unknown, rows: number): void }): Promise<number> {
  if (await writer.drainWithin(ms)) return 0;
  const rest = writer.takeQueued();
  let lost = 0;
  if (rest.text) {
    try {
      const rows = decodeLogBatch(rest.text);
      const stray = stripLedger(rows);
      if (stray > 0) events.strayLedger(stray);
      const rejected = await store.writeBatch(rows);
      if (rejected.length > 0) events.rejected(rejected);
      lost = rejected.length;
      for (const c of rest.charges ?? []) c.committed();
    } catch (err) {
      events.lost(err, rest.rows);
      lost = rest.rows;
      for (const c of rest.charges ?? []) c.notCarried();
    }
  }
  return lost + writer.pending;
}
