// Ledger entries of the request path (holds, releases; charges only when no log row carries them),
// queued and written one transaction per GROUP_MS window, a window after they were queued, by the log
// worker in gw (docs/billing.md "The ledger"). A failed write or a full queue fails gw closed.
import type { LedgerEntry, LedgerRepo } from "../store/repos/ledger.ts";
import { within } from "../store/log-writer.ts";
import type { StorageReporter } from "../store/storage-health.ts";

/** The request log's window too: fewer, larger transactions. */
const GROUP_MS = 25;
/** Entries queued before gw stops acknowledging requests; at twice this, entries are dropped loudly. */
export const LEDGER_QUEUE_BOUND = 100_000;

export interface LedgerWriterOptions {
  /** Writes a batch in one transaction: synchronously, or by resolving once committed (gw passes
   * the log worker, so the request thread never waits for SQLite's write lock). Default: the repo. */
  sink?: (entries: LedgerEntry[]) => void | Promise<void>;
  reporter?: StorageReporter;
  maxEntries?: number;
  /** An entry dropped at twice the bound (counted, reported, never silent). */
  onDrop?: (dropped: number) => void;
}

export class LedgerWriter {
  private queue: LedgerEntry[] = [];
  /** Batches handed to an asynchronous sink, not committed yet, oldest first. */
  private inflight: LedgerEntry[][] = [];
  private readonly sink: (entries: LedgerEntry[]) => void | Promise<void>;
  /** Hold entries queued and not written yet, by request id, and those taken back (takeHold). */
  private holds = new Map<string, LedgerEntry>();
  private taken = new Set<LedgerEntry>();
  private scheduled = false;
  /** Queue entries older than the last timer tick: the next tick writes these, the younger ones
   * wait a window more, so a request's hold is mostly still here for its charge to take. */
  private aged = 0;
  private waiters: Array<() => void> = [];
  private draining: Promise<void> | null = null;
  private readonly maxEntries: number;
  /** Entries dropped at twice the bound since start. */
  dropped = 0;

  constructor(
    private readonly repo: LedgerRepo,
    private readonly onError: (err: unknown, rows: number) => void,
    private readonly options: LedgerWriterOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? LEDGER_QUEUE_BOUND;
    this.sink = options.sink ?? ((entries) => repo.appendMany(entries));
    options.reporter?.onSpaceFreed(() => this.flush());
  }

  get pending(): number {
    let n = this.queue.length - this.taken.size;
    for (const b of this.inflight) n += b.length;
    return n;
  }

  /** The project's charge and cache entries queued or in flight (the ledger's sums add those a
   * read does not find in the table yet). */
  uncommitted(projectId: string): LedgerEntry[] | null {
    let out: LedgerEntry[] | null = null;
    const add = (e: LedgerEntry) => {
      if (e.projectId === projectId && (e.kind === "charge" || e.kind === "cache") && !this.taken.has(e)) (out ??= []).push(e);
    };
    for (const b of this.inflight) for (const e of b) add(e);
    for (const e of this.queue) add(e);
    return out;
  }

  /** The request's hold entry when it is still queued, taken out of the queue: its charge carries
   * it to the log worker, so the hold, charge and log row are written together. */
  takeHold(requestId: string): LedgerEntry | null {
    const entry = this.holds.get(requestId);
    if (!entry) return null;
    this.holds.delete(requestId);
    this.taken.add(entry);
    return entry;
  }

  append(entry: LedgerEntry): void {
    if (this.queue.length >= 2 * this.maxEntries) {
      this.options.onDrop?.(++this.dropped);
      return;
    }
    this.queue.push(entry);
    if (entry.kind === "hold" && entry.requestId) this.holds.set(entry.requestId, entry);
    if (this.queue.length >= this.maxEntries) this.options.reporter?.setFull(true);
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.tick(), GROUP_MS);
  }

  /** The timer: writes the entries queued before the previous tick (the queue's order is kept: a
   * prefix goes), and ages the rest for the next one. flush() writes everything at once. */
  private tick(): void {
    this.scheduled = false;
    const n = this.aged;
    if (n >= this.queue.length) return this.flush();
    if (n > 0) {
      const sent = this.queue.slice(0, n);
      this.queue = this.queue.slice(n);
      let batch: LedgerEntry[] = sent;
      if (this.taken.size > 0) {
        batch = [];
        for (const e of sent) if (!this.taken.delete(e)) batch.push(e);
      }
      // Sent holds can no longer travel with their charges.
      for (const e of batch) if (e.kind === "hold" && e.requestId && this.holds.get(e.requestId) === e) this.holds.delete(e.requestId);
      if (batch.length > 0) this.write(batch);
    }
    this.aged = this.queue.length;
    if (this.queue.length > 0 && !this.scheduled) (this.scheduled = true), setTimeout(() => this.tick(), GROUP_MS);
  }

  /** Hands everything queued to the sink now: a synchronous sink has written it on return. A
   * failed batch is queued again, in order. Sums read meanwhile include the uncommitted charges. */
  flush(): void {
    this.scheduled = false;
    this.aged = 0;
    if (this.queue.length > 0) {
      const batch = this.taken.size > 0 ? this.queue.filter((e) => !this.taken.has(e)) : this.queue;
      this.queue = [];
      this.taken.clear();
      // Sent holds can no longer travel with their charges: the charge's row comes after them.
      this.holds.clear();
      // Every entry taken by its charge: no transaction for nothing.
      if (batch.length === 0) return this.wake();
      return this.write(batch);
    }
    this.wake();
  }

  private write(batch: LedgerEntry[]): void {
    let result: void | Promise<void>;
    try {
      result = this.sink(batch);
    } catch (err) {
      return this.failed(batch, err);
    }
    if (result instanceof Promise) {
      this.inflight.push(batch);
      result.then(
        () => (this.settle(batch), this.written()),
        (err: unknown) => (this.settle(batch), this.failed(batch, err)),
      );
      return;
    }
    this.written();
  }

  private settle(batch: LedgerEntry[]): void {
    this.inflight.splice(this.inflight.indexOf(batch), 1);
  }

  private written(): void {
    this.options.reporter?.writeOk();
    if (this.queue.length < this.maxEntries / 2) this.options.reporter?.setFull(false);
    this.wake();
  }

  private failed(batch: LedgerEntry[], err: unknown): void {
    this.onError(err, batch.length);
    this.queue = batch.concat(this.queue);
    this.aged += batch.length;
    for (const e of batch) if (e.kind === "hold" && e.requestId) this.holds.set(e.requestId, e);
    // A closed database (after shutdown) will not come back: retrying would only loop.
    if (String(err).includes("closed")) return;
    this.options.reporter?.writeFailed(err);
    if (!this.scheduled) (this.scheduled = true), setTimeout(() => this.flush(), 100);
  }

  private wake(): void {
    if (this.queue.length > this.taken.size || this.inflight.length > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    this.draining = null;
    for (const w of waiters) w();
  }

  /** Resolves once everything queued so far is written (and whatever is queued meanwhile). */
  drain(): Promise<void> {
    if (this.queue.length > 0 && this.inflight.length === 0) this.flush();
    if (this.queue.length === 0 && this.inflight.length === 0) return Promise.resolve();
    // One promise for every caller while the ledger is stuck: callers that give up leave nothing.
    return (this.draining ??= new Promise((resolve) => this.waiters.push(resolve)));
  }

  /** Like drain, but gives up after `ms`: true when everything queued was written in time. */
  drainWithin(ms: number): Promise<boolean> {
    return within(this.drain(), ms);
  }
}
