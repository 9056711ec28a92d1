// Traces on PostgreSQL, written after their rows (docs/scale-out.md "Request log on the request path"):
// an answer waits for its row and charge only; its trace follows in the next trace batch, one call of
// gw_write_traces (migration 015). Traces queued while a batch is in flight go together in the next.
import type { SqlValue } from "../log-batch-codec.ts";
import { bounded, type Postgres } from "./connect.ts";

export interface QueuedTrace {
  project_id: string;
  request_id: string;
  /** The row's created_at (the traces' day partition). */
  created_at: SqlValue | undefined;
  /** The encoded trace (trace-codec.ts). */
  data: string;
  bytes: number;
}

export interface TraceWriterOptions {
  /** A batch failed: it is kept and tried again `retryMs` later. */
  onError?: (err: unknown, traces: number) => void;
  /** Traces dropped at the queue's bound (PostgreSQL unreachable for long): their rows are stored. */
  onDrop?: (dropped: number) => void;
  /** How long the first trace queued waits for others (default 50 ms): one call for the traces of
   * many answers costs PostgreSQL a fraction of one call each (docs/scale-out.md "Measured overhead"). */
  gatherMs?: number;
  /** Queue bound in traces and in bytes; past it new traces are dropped, loudly. */
  maxTraces?: number;
  maxBytes?: number;
  retryMs?: number;
}

const WRITE_TRACES = "SELECT gw_write_traces($1::text::jsonb, $2::bigint) AS n";
/** Traces per call: a batch stays a short transaction however far behind the queue is. */
const BATCH = 256;

export class TraceWriter {
  private queue: QueuedTrace[] = [];
  private bytes = 0;
  private inflight = 0;
  private scheduled = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private waiters: Array<() => void> = [];
  private readonly maxTraces: number;
  private readonly maxBytes: number;
  private readonly gatherMs: number;
  /** Traces dropped at the bound since start. */
  dropped = 0;

  constructor(
    private readonly pg: Postgres,
    /** A project's trace bytes (0: no budget), read at each batch. */
    private readonly budget: () => number,
    private readonly options: TraceWriterOptions = {},
  ) {
    this.maxTraces = options.maxTraces ?? 20_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.gatherMs = options.gatherMs ?? 50;
  }

  /** Queues the traces of rows just committed: written `gatherMs` later with those queued meanwhile. */
  add(traces: readonly QueuedTrace[]): void {
    for (const t of traces) {
      if (this.queue.length >= this.maxTraces || this.bytes + t.bytes > this.maxBytes) {
        this.dropped++;
        this.options.onDrop?.(this.dropped);
        continue;
      }
      this.queue.push(t);
      this.bytes += t.bytes;
    }
    if (this.queue.length > 0 && this.inflight === 0 && !this.scheduled && !this.retry) {
      this.scheduled = true;
      setTimeout(() => ((this.scheduled = false), this.flush()), this.gatherMs).unref();
    }
  }

  /** Traces queued or in flight. */
  get pending(): number {
    return this.queue.length + this.inflight;
  }

  /** True once every trace queued so far is written, false when `ms` pass first. */
  drain(ms: number): Promise<boolean> {
    if (this.pending === 0) return Promise.resolve(true);
    const { promise, resolve } = Promise.withResolvers<boolean>();
    const timer = setTimeout(() => resolve(false), ms);
    this.waiters.push(() => (clearTimeout(timer), resolve(true)));
    if (this.retry) (clearTimeout(this.retry), (this.retry = null));
    if (this.inflight === 0) this.flush();
    return promise;
  }

  private flush(): void {
    if (this.inflight > 0 || this.queue.length === 0) return this.wake();
    const batch = this.queue.splice(0, BATCH);
    const size = batch.reduce((n, t) => n + t.bytes, 0);
    this.bytes -= size;
    this.inflight = batch.length;
    // `n` orders a project's traces within the batch for the budget check.
    const arg = JSON.stringify(batch.map((t, n) => ({ n, ...t })));
    const budget = Math.max(0, Math.floor(this.budget()));
    bounded(this.pg, "trace batch", () => this.pg.sql.unsafe(WRITE_TRACES, [arg, budget])).then(
      () => ((this.inflight = 0), this.flush()),
      (err: unknown) => {
        this.inflight = 0;
        this.options.onError?.(err, batch.length);
        // Kept, in order, for the next attempt.
        this.queue.unshift(...batch);
        this.bytes += size;
        this.retry ??= setTimeout(() => ((this.retry = null), this.flush()), this.options.retryMs ?? 1_000);
        this.retry.unref();
        this.wake();
      },
    );
  }

  /** Waiters learn of an empty queue here; while batches fail, from drain's bound. */
  private wake(): void {
    if (this.pending > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
