// Answers stored while the embedder could not embed their question (the model still loading, a
// call that timed out or failed): kept by id, bounded, and indexed off the request path once the
// embedder answers (docs/semantic-cache.md "Cold start").

export interface BacklogJob {
  id: number;
  partition: string;
  projectId: string;
}

export interface BacklogOptions {
  /** Resolves once the embedder can answer; rejects when it never will (a model that cannot load). */
  ready: () => Promise<void>;
  /** Embeds and indexes one batch; rejects when the embedder fails (the batch is tried again). */
  index: (batch: BacklogJob[]) => Promise<void>;
  onGiveUp: (entries: number, err: unknown) => void;
  /** Jobs held at most (ids only: the question is read from the store when indexed). */
  max?: number;
  batch?: number;
  /** Failed batches in a row after which the backlog is left to the next start. */
  maxFailures?: number;
  /** Wait before retrying a failed batch: this times the failures in a row. */
  retryMs?: number;
}

export class SemanticBacklog {
  private readonly jobs = new Map<number, BacklogJob>();
  private running: Promise<void> | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  /** The lowest id let go without being indexed (full, given up, stopped): the next start embeds it. */
  private lowestDropped = Infinity;
  private readonly o: Required<Omit<BacklogOptions, "ready" | "index" | "onGiveUp">>;

  constructor(private readonly opts: BacklogOptions) {
    this.o = { max: 4096, batch: 8, maxFailures: 5, retryMs: 1000, ...opts };
  }

  get size(): number {
    return this.jobs.size;
  }

  push(job: BacklogJob): void {
    if (this.stopped || this.jobs.size >= this.o.max) {
      this.lowestDropped = Math.min(this.lowestDropped, job.id);
      return;
    }
    this.jobs.set(job.id, job);
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** The lowest id stored but not indexed, Infinity when none: the saved watermark stays below it. */
  lowestUnindexed(): number {
    let lowest = this.lowestDropped;
    for (const id of this.jobs.keys()) if (id < lowest) lowest = id;
    return lowest;
  }

  /** Resolves once the backlog is empty or given up. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops retrying (shutdown): what is left is embedded at the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.settled();
  }

  private giveUp(err: unknown): void {
    const left = this.jobs.size;
    this.lowestDropped = this.lowestUnindexed();
    this.jobs.clear();
    if (left > 0 && !this.stopped) this.opts.onGiveUp(left, err);
  }

  private async drain(): Promise<void> {
    let failures = 0;
    while (this.jobs.size > 0 && !this.stopped) {
      const batch = [...this.jobs.values()].slice(0, this.o.batch);
      try {
        await this.opts.ready();
        await this.opts.index(batch);
        for (const job of batch) this.jobs.delete(job.id);
        failures = 0;
      } catch (err) {
        if (++failures >= this.o.maxFailures) return this.giveUp(err);
        if (this.stopped) break;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, this.o.retryMs * failures).unref();
        });
        this.wake = null;
      }
    }
    if (this.stopped) this.giveUp(null);
  }
}
