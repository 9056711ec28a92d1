// The exact cache's shared answers (docs/cache.md "Storage"): what a store of answers offers when it
// lives outside the process (store/redis/answers.ts), every call a promise. The in-process
// SqliteAnswerStore (cache/answer-store.ts) answers the same questions synchronously.
import type { Invalidation } from "../schema/cache-invalidate.ts";
import type { CacheRecord } from "./repos/cache-entries.ts";

export type NewCacheRecord = Omit<CacheRecord, "id">;

export interface SharedAnswerStore {
  /** The live entry for this project and key, or null (expired entries are misses). */
  get(projectId: string, key: string, now: number): Promise<CacheRecord | null>;
  /** An entry by id (a semantic hit), or null when gone, replaced, emptied or expired. */
  byId(projectId: string, id: number, now: number): Promise<CacheRecord | null>;
  /** Stores (or replaces, same project and key) an entry; returns it with its id. */
  put(entry: NewCacheRecord): Promise<CacheRecord>;
  /** Removes the project's matching entries; returns how many were removed (emptying a whole
   * project on Redis: an upper bound, entries that expired on their own included). */
  invalidate(projectId: string, what: Invalidation): Promise<number>;
  /** Ids removed by replacement or by tag. Emptying a whole project reports none: listeners drop
   * that project's entries themselves. */
  onRemoved(listener: (ids: number[]) => void): void;
}
