// The cache's queued SQLite writes (docs/cache.md "Storage"): one per (project, key), the newest
// winning, flushed in one transaction off the request path. A failed batch is retried with
// backoff; every write deletes its key's row before inserting, so newer writes replace it.
import type { CacheEntriesRepo, CacheRecord, CacheWrite } from "../store/repos/cache-entries.ts";

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

export interface WriteQueueOptions {
  /** Delay between the first queued write and the batch (the batching window). */
  delayMs: number;
  /** The highest id handed out so far, recorded with each batch. */
  lastId: () => number;
  onError: (err: unknown, writes: number) => void;
}

const slot = (projectId: string, key: string): string => `${projectId}\u0000${key}`;

export class CacheWriteQueue {
  private pending = new Map<string, CacheWrite>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private stopped = false;
  /** The id high-water mark last written; a flush with no writes still records a newer one. */
  private recordedLastId: number;

  constructor(private readonly repo: CacheEntriesRepo, private readonly options: WriteQueueOptions) {
    this.recordedLastId = options.lastId();
  }

  get size(): number {
    return this.pending.size;
  }

  /** True after a failed batch until one succeeds. */
  get failing(): boolean {
    return this.failures > 0;
  }

  push(write: CacheWrite): void {
    this.pending.set(slot(write.projectId, write.key), write);
    this.schedule(this.options.delayMs);
  }

  /** The queued write for this key, if any. */
  get(projectId: string, key: string): CacheWrite | undefined {
    return this.pending.get(slot(projectId, key));
  }

  /** A queued entry by id; the queue is small (one batching window), so a scan is fine. */
  entryById(id: number): CacheRecord | undefined {
    for (const w of this.pending.values()) if (w.entry?.id === id) return w.entry;
    return undefined;
  }

  /** A snapshot: callers may queue more while they walk it. */
  all(): CacheWrite[] {
    return [...this.pending.values()];
  }

  *writesOf(projectId: string): Iterable<CacheWrite> {
    for (const w of [...this.pending.values()]) if (w.projectId === projectId) yield w;
  }

  /** Forgets the project's queued writes (its rows were all just deleted). */
  dropProject(projectId: string): void {
    for (const [k, w] of this.pending) if (w.projectId === projectId) this.pending.delete(k);
  }

  /** Writes everything queued in one transaction; throws what SQLite threw (the batch stays queued). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const lastId = this.options.lastId();
    if (this.pending.size === 0 && lastId === this.recordedLastId) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      this.repo.write([...batch.values()], lastId);
      this.recordedLastId = lastId;
      this.failures = 0;
    } catch (err) {
      // Writes queued meanwhile are newer than the failed ones for their key: they win.
      for (const [k, w] of batch) if (!this.pending.has(k)) this.pending.set(k, w);
      this.failures++;
      this.schedule(Math.min(RETRY_MIN_MS * 2 ** (this.failures - 1), RETRY_MAX_MS));
      throw err;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.timer !== null || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const writes = this.pending.size;
      try {
        this.flush();
      } catch (err) {
        this.options.onError(err, writes);
      }
    }, ms);
    // Never keeps the process alive; shutdown calls flush() itself.
    this.timer.unref();
  }
}
