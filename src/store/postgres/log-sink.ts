// The LogWriter's sink on PostgreSQL (docs/scale-out.md "Request log and metrics"): the batch text the
// writer queues (log-batch-codec.ts) is decoded and written as one transaction; a failure rejects,
// so the writer keeps the rows and retries them, and a retry of a committed batch changes nothing.
import { decodeLogBatch, type PreparedRow } from "../log-batch-codec.ts";
import type { RequestLogStore } from "../log-store.ts";
import type { LogSink } from "../log-writer.ts";

/** `onRejected`: ids of rows that break a constraint, dropped so they cannot stall the log (as
 * the log worker reports them). `onStray`: ledger entries found on rows are taken off them and
 * counted (charges are the money store's); without it such a row fails its batch. */
export function postgresLogSink(store: RequestLogStore, onRejected: (ids: string[]) => void, onStray?: (entries: number) => void): LogSink {
  return {
    async insertBatch(batch: string): Promise<void> {
      const rows = decodeLogBatch(batch);
      if (onStray) {
        const stray = stripLedger(rows);
        if (stray > 0) onStray(stray);
      }
      const rejected = await store.writeBatch(rows);
      if (rejected.length > 0) onRejected(rejected);
    },
  };
}

/** Takes the ledger entries off the rows; how many there were. */
export function stripLedger(rows: PreparedRow[]): number {
  let stray = 0;
  for (const r of rows) {
    if (r.ledger === undefined) continue;
    stray += r.ledger.length;
    delete r.ledger;
  }
  return stray;
}
