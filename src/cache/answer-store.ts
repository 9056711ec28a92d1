// The exact answer store of the response cache (docs/cache.md "Storage"): a byte-bounded LRU over
// SQLite, a key index of every live key, queued writes, an expiry sweep and invalidation. SQLite
// errors surface as throws: the pipeline turns them into misses. Never logs content.
import { systemClock, type Clock } from "../lib/clock.ts";
import type { CacheEntriesRepo, CacheRecord } from "../store/repos/cache-entries.ts";
import type { Invalidation } from "../schema/cache-invalidate.ts";
import type { AnswerStore, CachedAnswer, NewCachedAnswer } from "./answer-store-types.ts";
import { entryBytes } from "./entry-bytes.ts";
import { KeyIndex } from "./key-index.ts";
import { ByteLru } from "./lru.ts";
import { keepServedForm, servedFormBytes, servedFormOf } from "./served-form.ts";
import { CacheWriteQueue, type CacheWriteSink } from "./write-queue.ts";

export interface AnswerStoreOptions {
  /** LRU budget for whole entries (GW_CACHE_MEMORY_MB). */
  memoryBytes: number;
  /** Batching window of the SQLite writes. */
  flushDelayMs?: number;
  /** Where batches are written: gw passes the log worker's connection; by default the repo, on
   * this thread. */
  sink?: CacheWriteSink;
  /** Between expiry sweeps once startSweeper() runs; 0 turns the timer off (tests call sweep()). */
  sweepIntervalMs?: number;
  onError?: (err: unknown, context: string) => void;
  /** Expiry is judged on it (deps.clock; tests move it). */
  clock?: Clock;
}

const FLUSH_DELAY_MS = 5;
const SWEEP_INTERVAL_MS = 60_000;
/** Rows per sweep statement: short enough never to hold the write lock noticeably. */
const SWEEP_BATCH = 500;
/** Queued writes kept while SQLite fails; past it, put() throws (the caller skips storing). */
const MAX_QUEUED_WHILE_FAILING = 10_000;

/** The stored record as the cache type: the store writes `usage` itself, from a Usage. */
const asAnswer = (r: CacheRecord): CachedAnswer => r as CachedAnswer;

export class SqliteAnswerStore implements AnswerStore {
  private readonly index = new KeyIndex();
  private readonly lru: ByteLru<CachedAnswer>;
  private readonly queue: CacheWriteQueue;
  private readonly listeners: Array<(ids: number[]) => void> = [];
  private readonly onError: (err: unknown, context: string) => void;
  private sweepTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly sweepIntervalMs: number;
  private lastId: number;
  private closed = false;
  private readonly clock: Clock;

  constructor(private readonly repo: CacheEntriesRepo, options: AnswerStoreOptions, now = (options.clock ?? systemClock).now()) {
    this.clock = options.clock ?? systemClock;
    this.lru = new ByteLru(options.memoryBytes);
    this.onError = options.onError ?? (() => {});
    // Keys only, at start; bodies stay on disk until asked for.
    this.index.reserve(repo.countLive(now));
    for (const row of repo.liveKeys(now)) this.index.set(row.project_id, row.key, row.id, row.expires_at);
    this.lastId = repo.lastId();
    this.queue = new CacheWriteQueue(options.sink ?? repo, {
      delayMs: options.flushDelayMs ?? FLUSH_DELAY_MS,
      lastId: () => this.lastId,
      onError: (err) => this.onError(err, "cache write failed; will retry"),
    });
    this.sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  }

  /** Live keys held in memory (all of them, hot or not). */
  get keys(): number {
    return this.index.size;
  }

  /** Estimated bytes of the entries held whole in memory. */
  get memoryBytes(): number {
    return this.lru.bytes;
  }

  get(projectId: string, key: string, now: number): CachedAnswer | null {
    const held = this.index.find(projectId, key);
    if (held === undefined || held.expiresAt <= now) return null;
    return this.load(projectId, key, held.id);
  }

  byId(projectId: string, id: number, now: number): CachedAnswer | null {
    const hot = this.lru.get(id);
    if (hot !== undefined) return hot.projectId === projectId && hot.expiresAt > now ? hot : null;
    const queued = this.queue.entryById(id);
    if (queued !== undefined) return queued.projectId === projectId && queued.expiresAt > now ? asAnswer(queued) : null;
    const row = this.repo.byId(projectId, id);
    // A row whose key now maps to a newer entry was replaced; its deletion is still queued.
    if (row === null || row.expiresAt <= now || !this.index.holds(projectId, row.key, id)) return null;
    const entry = asAnswer(row);
    this.lru.set(id, entry, entryBytes(entry));
    return entry;
  }

  put(entry: NewCachedAnswer): CachedAnswer {
    if (this.closed) throw new Error("answer store is closed");
    if (this.queue.failing && this.queue.size >= MAX_QUEUED_WHILE_FAILING) {
      throw new Error("answer store unavailable: writes are failing");
    }
    const stored: CachedAnswer = { ...entry, id: ++this.lastId, tags: [...new Set(entry.tags)].sort() };
    const replaced = this.index.set(stored.projectId, stored.key, stored.id, stored.expiresAt);
    this.lru.set(stored.id, stored, entryBytes(stored));
    this.queue.push({ projectId: stored.projectId, key: stored.key, entry: stored });
    if (replaced !== undefined) {
      this.lru.delete(replaced);
      this.emit([replaced]);
    }
    return stored;
  }

  invalidate(projectId: string, what: Invalidation): Promise<number> {
    if (this.closed) return Promise.reject(new Error("answer store is closed"));
    // Every write made before this call is committed first: none of them can land after the delete
    // below and bring an invalidated answer back at the next start.
    const committed = this.queue.settled();
    if (!this.queue.inFlight) {
      // Written on this thread (or nothing was queued): the removal is done before this returns.
      try {
        return Promise.resolve(this.invalidateNow(projectId, what));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return committed.then(() => {
      if (this.closed) throw new Error("answer store is closed");
      return this.invalidateNow(projectId, what);
    });
  }

  private invalidateNow(projectId: string, what: Invalidation): number {
    const now = this.clock.now();
    const removed: Array<{ id: number; expiresAt: number }> = [];
    // SQLite first: when it fails, nothing in memory has changed and the caller gets the error.
    if ("all" in what) {
      this.repo.deleteProject(projectId);
      removed.push(...this.index.removeProject(projectId));
      this.queue.dropProject(projectId);
    } else {
      const tags = new Set(what.tags);
      for (const row of this.repo.deleteByTags(projectId, [...tags])) {
        const expiresAt = this.index.remove(projectId, row.key, row.id);
        if (expiresAt !== undefined) removed.push({ id: row.id, expiresAt });
      }
      for (const w of this.queue.writesOf(projectId)) {
        if (w.entry === null || !w.entry.tags.some((t) => tags.has(t))) continue;
        // Queued as a delete, not dropped: the key's older row may be on disk and must go too.
        this.queue.push({ projectId, key: w.key, entry: null });
        const expiresAt = this.index.remove(projectId, w.key, w.entry.id);
        if (expiresAt !== undefined) removed.push({ id: w.entry.id, expiresAt });
      }
    }
    for (const r of removed) this.lru.delete(r.id);
    this.emit(removed.map((r) => r.id));
    // Counted: answers that could still have been served; expired ones were already gone.
    return removed.filter((r) => r.expiresAt > now).length;
  }

  /** Deletes up to `limit` expired rows; returns how many rows went. */
  sweep(now = this.clock.now(), limit = SWEEP_BATCH): number {
    const rows = this.repo.deleteExpired(now, limit);
    const ids: number[] = [];
    for (const row of rows) {
      if (this.index.remove(row.project_id, row.key, row.id) === undefined) continue;
      this.lru.delete(row.id);
      ids.push(row.id);
    }
    this.emit(ids);
    return rows.length;
  }

  onRemoved(listener: (ids: number[]) => void): void {
    this.listeners.push(listener);
  }

  *semanticEntries(now = this.clock.now()): Iterable<Pick<CachedAnswer, "id" | "partition" | "question" | "projectId" | "provider">> {
    for (const r of this.repo.semanticRows(now)) {
      if (this.index.holds(r.project_id, r.key, r.id)) yield { id: r.id, partition: r.partition, question: r.question, projectId: r.project_id, provider: r.provider };
    }
    for (const w of this.queue.all()) {
      const e = w.entry;
      if (e === null || e.question === null || e.expiresAt <= now || !this.index.holds(e.projectId, e.key, e.id)) continue;
      yield { id: e.id, partition: e.partition, question: e.question, projectId: e.projectId, provider: e.provider };
    }
  }

  flush(): void {
    this.queue.flush();
  }

  flushed(): Promise<void> {
    return this.queue.settled();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    if (this.sweepTimer !== null) clearTimeout(this.sweepTimer);
    this.queue.stop();
    // A synchronous sink has written everything when settled() returns; a batch that failed in
    // flight is queued again and gets one more try.
    const first = this.queue.settled();
    if (this.queue.size === 0) return first;
    return first.then(() => this.queue.settled());
  }

  /** From memory (hot or queued) or, for an entry that fell out of the LRU, from SQLite. */
  private load(projectId: string, key: string, id: number): CachedAnswer | null {
    const hot = this.lru.get(id);
    if (hot !== undefined) return this.withServedForm(id, hot);
    const queued = this.queue.get(projectId, key)?.entry;
    if (queued?.id === id) return asAnswer(queued);
    const row = this.repo.byId(projectId, id);
    if (row === null) {
      // Gone from disk behind the index's back (deleted outside gw): forget the key.
      this.index.remove(projectId, key, id);
      return null;
    }
    const entry = asAnswer(row);
    if (this.lru.set(id, entry, entryBytes(entry))) this.withServedForm(id, entry);
    return entry;
  }

  /** An exact hit on an entry held in memory: its served form is made once and counted in the
   * LRU's budget; an entry that would not fit with it stays without (its hits parse). */
  private withServedForm(id: number, entry: CachedAnswer): CachedAnswer {
    if (servedFormOf(entry) !== undefined) return entry;
    const extra = servedFormBytes(entry);
    if (entryBytes(entry) + extra <= this.lru.maxBytes && keepServedForm(entry)) this.lru.grow(id, extra);
    return entry;
  }

  private emit(ids: number[]): void {
    if (ids.length === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(ids);
      } catch (err) {
        // A listener (the semantic index) failing must not undo or fail a removal already made.
        this.onError(err, "cache removal listener failed");
      }
    }
  }

  /** The expiry sweep on an unref'd timer (a service of the server; tests may start it too). */
  startSweeper(): void {
    const intervalMs = this.sweepIntervalMs;
    if (intervalMs <= 0 || this.closed || this.sweepTimer !== null) return;
    const tick = () => {
      let deleted = 0;
      try {
        deleted = this.sweep();
      } catch (err) {
        this.onError(err, "cache expiry sweep failed; will retry");
      }
      if (this.closed) return;
      // A full batch means more are waiting: continue at once, but in a new task, so requests
      // run between batches.
      this.sweepTimer = setTimeout(tick, deleted === SWEEP_BATCH ? 0 : intervalMs);
      this.sweepTimer.unref();
    };
    this.sweepTimer = setTimeout(tick, intervalMs);
    this.sweepTimer.unref();
  }
}
