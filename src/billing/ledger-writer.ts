// Ledger entries of the request path (holds, releases; charges only when no log row carries them),
// queued and written one transaction per GROUP_MS window (docs/billing.md "The ledger"). A failed
// write or a queue at its bound fails gw closed (store/storage-health.ts) until writes succeed.
import type { LedgerEntry, LedgerRepo } from "../store/repos/ledger.ts";
import { within } from "../store/log-writer.ts";
import type { StorageReporter } from "../store/storage-health.ts";

/** The request log's window too: each window's BEGIN IMMEDIATE may wait for the log worker's write
 * lock on this thread, so fewer, larger windows (docs/billing.md "The ledger"). */
const GROUP_MS = 25;
/** Entries queued before gw stops acknowledging requests; at twice this, entries are dropped loudly. */
export const LEDGER_QUEUE_BOUND = 100_000;

export interface LedgerWriterOptions {
  reporter?: StorageReporter;
  maxEntries?: number;
  /** An entry dropped at twice the bound (counted, reported, never silent). */
  onDrop?: (dropped: number) => void;
}

export class LedgerWriter {
  private queue: LedgerEntry[] = [];
  /** Hold entries queued and not written yet, by request id, and those taken back (takeHold). */
  private holds = new Map<string, LedgerEntry>();
  private taken = new Set<LedgerEntry>();
  private scheduled = false;
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
    options.reporter?.onSpaceFreed(() => this.flush());
  }

  get pending(): number {
    return this.queue.length - this.taken.size;
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
    setTimeout(() => this.flush(), GROUP_MS);
  }

  /** Writes everything queued now, synchronously (also before an account is read from the table,
   * so its sums include every entry this process made). A failed batch stays queued, in order. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length > 0) {
      const batch = this.taken.size > 0 ? this.queue.filter((e) => !this.taken.has(e)) : this.queue;
      this.queue = [];
      this.taken.clear();
      try {
        // Every entry taken by its charge: no transaction (nor wait for the write lock) for nothing.
        if (batch.length > 0) this.repo.appendMany(batch);
      } catch (err) {
        this.onError(err, batch.length);
        this.queue = batch.concat(this.queue);
        // A closed database (after shutdown) will not come back: retrying would only loop.
        if (String(err).includes("closed")) return;
        this.options.reporter?.writeFailed(err);
        if (!this.scheduled) (this.scheduled = true), setTimeout(() => this.flush(), 100);
        return;
      }
      this.holds.clear();
      this.options.reporter?.writeOk();
      if (this.queue.length < this.maxEntries / 2) this.options.reporter?.setFull(false);
    }
    const waiters = this.waiters;
    this.waiters = [];
    this.draining = null;
    for (const w of waiters) w();
  }

  /** Resolves once everything queued so far is written. */
  drain(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    // One promise for every caller while the ledger is stuck: callers that give up leave nothing.
    return (this.draining ??= new Promise((resolve) => this.waiters.push(resolve)));
  }

  /** Like drain, but gives up after `ms`: true when everything queued was written in time. */
  drainWithin(ms: number): Promise<boolean> {
    return within(this.drain(), ms);
  }
}
