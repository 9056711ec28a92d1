// Queues request-log rows off the response path and writes them in batched transactions.
// A failing write is logged and retried on the next flush; it never fails a request.
import type { RequestRecord, RequestsRepo } from "./repos/requests.ts";

export interface LogWriterOptions {
  /** Flush when this many rows wait. */
  batchSize?: number;
  /** Otherwise flush this long after the first queued row. */
  intervalMs?: number;
  onError?: (err: unknown, rows: number) => void;
}

export class LogWriter {
  private queue: RequestRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private waiters: Array<() => void> = [];
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private written = 0;

  constructor(
    private readonly repo: RequestsRepo,
    private readonly options: LogWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.intervalMs = options.intervalMs ?? 25;
  }

  enqueue(record: RequestRecord): void {
    this.queue.push(record);
    if (this.queue.length >= this.batchSize) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Writes everything queued now, synchronously (used on shutdown). */
  flush(): void {
    if (this.timer) (clearTimeout(this.timer), (this.timer = null));
    if (this.queue.length === 0) return this.wake();
    const batch = this.queue;
    this.queue = [];
    try {
      this.repo.insertBatch(batch);
      this.written += batch.length;
    } catch (err) {
      this.options.onError?.(err, batch.length);
      // Keep the rows for the next attempt rather than losing them.
      this.queue = batch.concat(this.queue);
      if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs * 10);
      return;
    }
    this.wake();
  }

  /** Resolves once every row queued so far is written (tests await this instead of sleeping). */
  drain(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.flush();
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  get totalWritten(): number {
    return this.written;
  }

  private wake(): void {
    if (this.queue.length > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
