// The cache's queued SQLite writes (docs/cache.md "Storage"): one per (project, key), the newest
// winning, handed in batches to a sink (the log worker's connection in gw, so the request thread
// never takes SQLite's write lock). A failed batch is retried with backoff.
import type { CacheRecord, CacheWrite } from "../store/repos/cache-entries.ts";

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

/** Writes a batch in one transaction: synchronously (a repo) or by resolving once committed. Every
 * write deletes its key's row before inserting, so newer writes replace older ones. */
export interface CacheWriteSink {
  write(writes: CacheWrite[], lastId: number): void | Promise<void>;
}

export interface WriteQueueOptions {
  /** Delay between the first queued write and the batch (the batching window). */
  delayMs: number;
  /** The highest id handed out so far, recorded with each batch. */
  lastId: () => number;
  onError: (err: unknown, writes: number) => void;
}

type Batch = Map<string, CacheWrite>;

const slot = (projectId: string, key: string): string => `${projectId}\u0000${key}`;

export class CacheWriteQueue {
  private pending: Batch = new Map();
  /** Batches handed to an asynchronous sink and not yet committed, oldest first: still readable. */
  private inflight: Array<{ batch: Batch; done: Promise<void> }> = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private stopped = false;
  /** The id high-water mark last handed over; a flush with no writes still records a newer one. */
  private recordedLastId: number;

  constructor(private readonly sink: CacheWriteSink, private readonly options: WriteQueueOptions) {
    this.recordedLastId = options.lastId();
  }

  /** Writes queued or in flight. */
  get size(): number {
    let n = this.pending.size;
    for (const f of this.inflight) n += f.batch.size;
    return n;
  }

  /** True while a batch handed to an asynchronous sink is not committed. */
  get inFlight(): boolean {
    return this.inflight.length > 0;
  }

  /** True after a failed batch until one succeeds. */
  get failing(): boolean {
    return this.failures > 0;
  }

  push(write: CacheWrite): void {
    this.pending.set(slot(write.projectId, write.key), write);
    this.schedule(this.options.delayMs);
  }

  /** The newest write for this key not yet committed, if any. */
  get(projectId: string, key: string): CacheWrite | undefined {
    const s = slot(projectId, key);
    const queued = this.pending.get(s);
    if (queued !== undefined) return queued;
    for (let i = this.inflight.length - 1; i >= 0; i--) {
      const w = this.inflight[i]!.batch.get(s);
      if (w !== undefined) return w;
    }
    return undefined;
  }

  /** An uncommitted entry by id; the queue is small (one batching window), so a scan is fine. */
  entryById(id: number): CacheRecord | undefined {
    for (const w of this.all()) if (w.entry?.id === id) return w.entry;
    return undefined;
  }

  /** A snapshot of the newest uncommitted write per key: callers may queue more while they walk it. */
  all(): CacheWrite[] {
    if (this.inflight.length === 0) return [...this.pending.values()];
    const newest: Batch = new Map();
    for (const f of this.inflight) for (const [k, w] of f.batch) newest.set(k, w);
    for (const [k, w] of this.pending) newest.set(k, w);
    return [...newest.values()];
  }

  /** The project's queued (not yet handed over) writes. */
  *writesOf(projectId: string): Iterable<CacheWrite> {
    for (const w of [...this.pending.values()]) if (w.projectId === projectId) yield w;
  }

  /** Forgets the project's queued writes (its rows were all just deleted). */
  dropProject(projectId: string): void {
    for (const [k, w] of this.pending) if (w.projectId === projectId) this.pending.delete(k);
  }

  /** Hands everything queued to the sink now. A synchronous sink has written it on return, or this
   * throws what it threw (the batch stays queued); an asynchronous one is awaited by settled(). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const lastId = this.options.lastId();
    if (this.pending.size === 0 && lastId === this.recordedLastId) return;
    const batch = this.pending;
    this.pending = new Map();
    let result: void | Promise<void>;
    try {
      result = this.sink.write([...batch.values()], lastId);
    } catch (err) {
      this.failed(batch);
      throw err;
    }
    this.recordedLastId = lastId;
    if (!(result instanceof Promise)) return void (this.failures = 0);
    const entry = { batch, done: Promise.resolve() };
    entry.done = result.then(
      () => {
        this.inflight.splice(this.inflight.indexOf(entry), 1);
        this.failures = 0;
      },
      (err: unknown) => {
        this.inflight.splice(this.inflight.indexOf(entry), 1);
        this.failed(batch);
        this.options.onError(err, batch.size);
      },
    );
    this.inflight.push(entry);
  }

  /** Resolves once every batch handed over before this call is committed or has failed (a failed
   * one is queued again). Writes queued now are handed over first. */
  settled(): Promise<void> {
    try {
      this.flush();
    } catch (err) {
      // Queued again with a retry; the caller sees what is committed, as after any failed batch.
      this.options.onError(err, this.pending.size);
    }
    if (this.inflight.length === 0) return Promise.resolve();
    return Promise.all(this.inflight.map((f) => f.done)).then(() => {});
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Puts a failed batch's writes back, except where a newer write for the key is queued or still
   * in flight (the worker answers in order, so every batch still in flight is newer), and retries
   * with backoff. */
  private failed(batch: Batch): void {
    const newer = (k: string): boolean => this.pending.has(k) || this.inflight.some((f) => f.batch.has(k));
    // Older writes go first in the new queue: a Map keeps insertion order.
    const requeued: Batch = new Map();
    for (const [k, w] of batch) if (!newer(k)) requeued.set(k, w);
    for (const [k, w] of this.pending) requeued.set(k, w);
    this.pending = requeued;
    // The id mark is recorded again with the next batch.
    this.recordedLastId = -1;
    this.failures++;
    this.schedule(Math.min(RETRY_MIN_MS * 2 ** (this.failures - 1), RETRY_MAX_MS));
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
