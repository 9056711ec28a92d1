// Queues request-log rows (each with its ledger charge) off the response path and writes them in
// batches through a sink (the log worker, or a repo). A failing write is retried and never fails its
// request, but fails gw closed (docs/availability.md "Storage"), as does a queue at its bound.
import { encodeLogRow } from "./log-batch-codec.ts";
import type { LedgerEntry } from "./repos/ledger.ts";
import type { RequestRecord } from "./repos/requests.ts";
import type { StorageReporter } from "./storage-health.ts";

/** Read-your-writes waits at most this long for queued rows; then the answer is what is on disk
 * (a log that cannot be written must not hang reads; docs/availability.md "Storage"). */
export const READ_DRAIN_LIMIT_MS = 2_000;

/** Writes one encoded batch: synchronously (a repo) or by resolving once it is committed (the worker). */
export interface LogSink {
  insertBatch(batch: string): void | Promise<void>;
}

/** A request's ledger entries handed over with its log row: written in the row's transaction,
 * then `committed()` is called (billing counts them from memory until then). */
export interface QueuedCharge {
  readonly entries: LedgerEntry[];
  committed(): void;
  /** The row was dropped: the charge must be written without it. */
  notCarried(): void;
}

/** Queued text, how many rows it holds, their charges and (group commit) who awaits their commit;
 * a failed batch is requeued as one entry. */
type Queued = { text: string; rows: number; charges: QueuedCharge[] | null; acks?: Array<() => void> | null };

const chargesOf = (queue: Queued[]): QueuedCharge[] | null => {
  let out: QueuedCharge[] | null = null;
  for (const q of queue) if (q.charges) (out ??= []).push(...q.charges);
  return out;
};

const acksOf = (queue: Queued[]): Array<() => void> | null => {
  let out: Array<() => void> | null = null;
  for (const q of queue) if (q.acks) (out ??= []).push(...q.acks);
  return out;
};

export interface LogWriterOptions {
  /** Flush when this many rows wait. */
  batchSize?: number;
  /** Otherwise flush this long after the first queued row. */
  intervalMs?: number;
  onError?: (err: unknown, rows: number) => void;
  /** Storage health: every write's outcome and the queue's bound (fail closed). */
  reporter?: StorageReporter;
  /** Queue bound in rows and in bytes of encoded text: at it gw stops acknowledging requests.
   * Rows of requests already answered are still taken up to twice the bound, then dropped loudly. */
  maxRows?: number;
  maxBytes?: number;
  /** A row dropped at twice the bound (never silently: counted and reported). */
  onDrop?: (dropped: number) => void;
  /** Multi-instance (docs/scale-out.md "Request log and metrics"): enqueue answers a promise of its
   * row's commit, resolved at the latest `ackWithinMs` later (a log that cannot be written must not
   * hang answers). A batch is sent as soon as none is in flight; rows arriving meanwhile form the next. */
  groupCommit?: { ackWithinMs: number };
}

/** Resolves true once `p` settles, false when `ms` pass first (reads never wait without end). */
export function within(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

export class LogWriter {
  private queue: Queued[] = [];
  private queuedRows = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private waiters: Array<() => void> = [];
  private draining: Promise<void> | null = null;
  private inflight = 0;
  private inflightRows = 0;
  private inflightBytes = 0;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private written = 0;
  private queuedBytes = 0;
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private groupScheduled = false;
  /** Rows dropped at twice the bound since start. */
  dropped = 0;

  constructor(
    private readonly sink: LogSink,
    private readonly options: LogWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.intervalMs = options.intervalMs ?? 25;
    this.maxRows = options.maxRows ?? 50_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    options.reporter?.onSpaceFreed(() => this.flush());
  }

  /** Queues the row and the request's charge, to be written together. With group commit, a promise
   * of the row's commit (or of the bound); otherwise nothing. */
  enqueue(record: RequestRecord, charge: QueuedCharge | null = null): void | Promise<void> {
    if (this.pending >= 2 * this.maxRows || this.queuedBytes + this.inflightBytes >= 2 * this.maxBytes) {
      // Counted whether or not anyone listens (an optional call would skip the increment).
      this.dropped++;
      this.options.onDrop?.(this.dropped);
      charge?.notCarried();
      return;
    }
    const text = encodeLogRow(record, charge?.entries);
    const entry: Queued = { text, rows: 1, charges: charge ? [charge] : null };
    this.queue.push(entry);
    this.queuedBytes += text.length;
    this.queuedRows++;
    this.checkBound();
    if (this.options.groupCommit) return this.committed(entry, this.options.groupCommit.ackWithinMs);
    if (this.queuedRows >= this.batchSize) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Group commit: the entry's commit, or `ms`, whichever comes first. Rows queued in one turn of
   * the event loop go together; while a batch is in flight they wait for its end (done). */
  private committed(entry: Queued, ms: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const timer = setTimeout(resolve, ms);
    entry.acks = [() => (clearTimeout(timer), resolve())];
    if (this.queuedRows >= this.batchSize) this.flush();
    else if (this.inflight === 0 && !this.groupScheduled) {
      this.groupScheduled = true;
      queueMicrotask(() => {
        this.groupScheduled = false;
        if (this.inflight === 0) this.flush();
      });
    }
    return promise;
  }

  /** Hands everything queued to the sink now. */
  flush(): void {
    if (this.timer) (clearTimeout(this.timer), (this.timer = null));
    if (this.queue.length === 0) return this.wake();
    const batch: Queued = { text: this.queue.map((q) => q.text).join(""), rows: this.queuedRows, charges: chargesOf(this.queue), acks: this.options.groupCommit ? acksOf(this.queue) : null };
    this.queue = [];
    this.queuedRows = 0;
    this.queuedBytes = 0;
    this.inflightRows += batch.rows;
    this.inflightBytes += batch.text.length;
    let result: void | Promise<void>;
    try {
      result = this.sink.insertBatch(batch.text);
    } catch (err) {
      return this.failed(batch, err);
    }
    if (!(result instanceof Promise)) return this.done(batch);
    this.inflight++;
    result.then(
      () => (this.inflight--, this.done(batch)),
      (err: unknown) => (this.inflight--, this.failed(batch, err)),
    );
  }

  /** Like drain, but gives up after `ms`: true when everything queued was written in time. */
  drainWithin(ms: number): Promise<boolean> {
    return within(this.drain(), ms);
  }

  /** Resolves once every row queued so far is written (tests await this instead of sleeping). */
  drain(): Promise<void> {
    if (this.queue.length === 0 && this.inflight === 0) return Promise.resolve();
    // One promise for every caller while the log is stuck: reads that time out leave nothing behind.
    this.draining ??= new Promise((resolve) => this.waiters.push(resolve));
    this.flush();
    return this.draining;
  }

  /** Everything queued and not in flight, as one batch, taken out of the writer (shutdown's last
   * write on another sink; its charges are committed once it is written). */
  takeQueued(): Queued {
    if (this.timer) (clearTimeout(this.timer), (this.timer = null));
    const taken: Queued = { text: this.queue.map((q) => q.text).join(""), rows: this.queuedRows, charges: chargesOf(this.queue), acks: this.options.groupCommit ? acksOf(this.queue) : null };
    this.queue = [];
    this.queuedRows = 0;
    this.queuedBytes = 0;
    return taken;
  }

  /** Rows queued or handed to the sink and not yet committed. */
  get pending(): number {
    return this.queuedRows + this.inflightRows;
  }

  get totalWritten(): number {
    return this.written;
  }

  private done(batch: Queued): void {
    this.settled(batch);
    if (batch.charges) for (const c of batch.charges) c.committed();
    if (batch.acks) for (const ack of batch.acks) ack();
    this.written += batch.rows;
    this.options.reporter?.writeOk();
    this.checkBound();
    // Group commit: what gathered while this batch was in flight goes now.
    if (this.options.groupCommit && this.inflight === 0 && this.queue.length > 0) return this.flush();
    this.wake();
  }

  private failed(batch: Queued, err: unknown): void {
    this.settled(batch);
    this.options.onError?.(err, batch.rows);
    // Keep the rows, in order, for the next attempt rather than losing them.
    this.queue.unshift(batch);
    this.queuedRows += batch.rows;
    this.queuedBytes += batch.text.length;
    this.options.reporter?.writeFailed(err);
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs * 10);
  }

  private settled(batch: Queued): void {
    this.inflightRows -= batch.rows;
    this.inflightBytes -= batch.text.length;
  }

  /** Full at the bound; not full again below half of it, so health does not flap. */
  private checkBound(): void {
    const reporter = this.options.reporter;
    if (!reporter) return;
    const rows = this.pending;
    const bytes = this.queuedBytes + this.inflightBytes;
    if (rows >= this.maxRows || bytes >= this.maxBytes) reporter.setFull(true);
    else if (rows < this.maxRows / 2 && bytes < this.maxBytes / 2) reporter.setFull(false);
  }

  private wake(): void {
    if (this.queue.length > 0 || this.inflight > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    this.draining = null;
    for (const w of waiters) w();
  }
}
