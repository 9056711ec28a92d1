// The LogWriter's sink on PostgreSQL (docs/scale-out.md "Request log and metrics"): the batch text the
// writer queues (log-batch-codec.ts) is decoded and written as one transaction; a failure rejects,
// so the writer keeps the rows and retries them, and a retry of a committed batch changes nothing.
import { decodeLogBatch } from "../log-batch-codec.ts";
import type { RequestLogStore } from "../log-store.ts";
import type { LogSink } from "../log-writer.ts";

/** `onRejected`: ids of rows that break a constraint, dropped so they cannot stall the log (as
 * the log worker reports them). */
export function postgresLogSink(store: RequestLogStore, onRejected: (ids: string[]) => void): LogSink {
  return {
    async insertBatch(batch: string): Promise<void> {
      const rejected = await store.writeBatch(decodeLogBatch(batch));
      if (rejected.length > 0) onRejected(rejected);
    },
  };
}
