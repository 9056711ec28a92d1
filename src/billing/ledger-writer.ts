// Ledger entries of the request path (holds, charges, releases, cache rows) are queued and written
// together, one transaction per GROUP_MS window (group commit; docs/billing.md "Writes"): one row
// alone costs ~20 us to commit, one of a batch of 64 ~3 us. The in-memory accounts are already up
// to date; the table follows within the window, and a crash loses at most that window.
import type { LedgerEntry, LedgerRepo } from "../store/repos/ledger.ts";

const GROUP_MS = 5;

export class LedgerWriter {
  private queue: LedgerEntry[] = [];
  private scheduled = false;
  private waiters: Array<() => void> = [];

  constructor(private readonly repo: LedgerRepo, private readonly onError: (err: unknown, rows: number) => void) {}

  get pending(): number {
    return this.queue.length;
  }

  append(entry: LedgerEntry): void {
    this.queue.push(entry);
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.flush(), GROUP_MS);
  }

  /** Writes everything queued now, synchronously (also before an account is read from the table,
   * so its sums include every entry this process made). A failed batch stays queued, in order. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        this.repo.appendMany(batch);
      } catch (err) {
        this.onError(err, batch.length);
        // A closed database (after shutdown) will not come back: retrying would only loop.
        if (String(err).includes("closed")) return;
        this.queue = batch.concat(this.queue);
        if (!this.scheduled) (this.scheduled = true), setTimeout(() => this.flush(), 100);
        return;
      }
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once everything queued so far is written. */
  drain(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
