// The response cache's stored answers (docs/cache.md "Storage"): what one entry holds and what the
// store offers the pipeline (cache-lookup and cache-store stages) and POST /cache/invalidate.
import type { Usage } from "../canonical/completion.ts";
import type { Invalidation } from "../schema/cache-invalidate.ts";

export interface CachedAnswer {
  /** Row id; also the semantic index's label for this entry. */
  id: number;
  projectId: string;
  /** Exact-match key (hex sha256 over every key component of 4.13 and the normalised request). */
  key: string;
  /** Semantic partition: the key components without the question, so a semantic hit can only
   * come from the same project, scope, user, system prompt, tools, policies and versions. */
  partition: string;
  /** Catalog id of the model that produced the answer, and its provider. */
  model: string;
  provider: string;
  /** The answer as canonical chat-completion JSON text, without `gw`. */
  body: string;
  usage: Usage;
  /** Tags stored with the answer (caller's and automatic), for invalidation. */
  tags: string[];
  /** The single user question, kept only for semantic entries so the index can be rebuilt. */
  question: string | null;
  createdAt: number;
  expiresAt: number;
}

export type NewCachedAnswer = Omit<CachedAnswer, "id">;

export interface AnswerStore {
  /** The live entry for this project and key, or null (expired entries are misses). Served from
   * memory when the entry is hot; never touches SQLite for a key it does not hold. */
  get(projectId: string, key: string, now: number): CachedAnswer | null;
  /** An entry by id (a semantic hit), or null when gone or expired. */
  byId(projectId: string, id: number, now: number): CachedAnswer | null;
  /** Stores (or replaces, same project and key) an entry: visible to `get` at once, written to
   * SQLite off the request path. Returns the entry with its id. */
  put(entry: NewCachedAnswer): CachedAnswer;
  /** Removes the project's matching entries everywhere; returns how many were removed. */
  invalidate(projectId: string, what: Invalidation): Promise<number>;
  /** Called with the ids of removed entries (invalidation, expiry, replacement), so the semantic
   * index can drop them. */
  onRemoved(listener: (ids: number[]) => void): void;
  /** Every live semantic entry (question not null), for rebuilding the semantic index. */
  semanticEntries(): Iterable<Pick<CachedAnswer, "id" | "partition" | "question" | "projectId" | "provider">>;
  /** Hands what is queued to SQLite now (on return when the writes are made on this thread). */
  flush(): void;
  /** Resolves once everything queued before the call is committed (or failed and queued again). */
  flushed(): Promise<void>;
  /** Starts the periodic expiry sweep (the server's start). */
  startSweeper(): void;
  /** Stops taking entries and writes what is queued. */
  close(): Promise<void>;
}
