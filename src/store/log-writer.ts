// Queues request-log rows off the response path and writes them in batches, through a sink: the
// log worker (a thread with its own SQLite connection) in the server, or a repo directly in
// tools and tests. A failing write is reported and retried; it never fails a request. Rows are
// encoded as they are queued (log-batch-codec.ts): a batch is one string.
import { encodeLogRow } from "./log-batch-codec.ts";
import type { RequestRecord } from "./repos/requests.ts";

/** Writes one encoded batch: synchronously (a repo) or by resolving once it is committed (the worker). */
export interface LogSink {
  insertBatch(batch: string): void | Promise<void>;
}

/** Queued text and how many rows it holds (a failed batch is requeued as one entry). */
type Queued = { text: string; rows: number };

export interface LogWriterOptions {
  /** Flush when this many rows wait. */
  batchSize?: number;
  /** Otherwise flush this long after the first queued row. */
  intervalMs?: number;
  onError?: (err: unknown, rows: number) => void;
}

export class LogWriter {
  private queue: Queued[] = [];
  private queuedRows = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private waiters: Array<() => void> = [];
  private inflight = 0;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private written = 0;

  constructor(
    private readonly sink: LogSink,
    private readonly options: LogWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.intervalMs = options.intervalMs ?? 25;
  }

  enqueue(record: RequestRecord): void {
    this.queue.push({ text: encodeLogRow(record), rows: 1 });
    if (++this.queuedRows >= this.batchSize) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Hands everything queued to the sink now. */
  flush(): void {
    if (this.timer) (clearTimeout(this.timer), (this.timer = null));
    if (this.queue.length === 0) return this.wake();
    const batch: Queued = { text: this.queue.map((q) => q.text).join(""), rows: this.queuedRows };
    this.queue = [];
    this.queuedRows = 0;
    let result: void | Promise<void>;
    try {
      result = this.sink.insertBatch(batch.text);
    } catch (err) {
      return this.failed(batch, err);
    }
    if (!(result instanceof Promise)) return this.done(batch.rows);
    this.inflight++;
    result.then(
      () => (this.inflight--, this.done(batch.rows)),
      (err: unknown) => (this.inflight--, this.failed(batch, err)),
    );
  }

  /** Resolves once every row queued so far is written (tests await this instead of sleeping). */
  drain(): Promise<void> {
    if (this.queue.length === 0 && this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.flush();
    });
  }

  /** Rows queued, plus batches handed to the sink and not yet committed. */
  get pending(): number {
    return this.queuedRows + this.inflight;
  }

  get totalWritten(): number {
    return this.written;
  }

  private done(rows: number): void {
    this.written += rows;
    this.wake();
  }

  private failed(batch: Queued, err: unknown): void {
    this.options.onError?.(err, batch.rows);
    // Keep the rows, in order, for the next attempt rather than losing them.
    this.queue.unshift(batch);
    this.queuedRows += batch.rows;
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs * 10);
  }

  private wake(): void {
    if (this.queue.length > 0 || this.inflight > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
