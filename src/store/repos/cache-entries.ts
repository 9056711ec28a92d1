// The response cache's rows (docs/cache.md "Storage"; migration 004): entries, their tags and the id
// high-water mark. Every read and invalidation takes the project id. Written only through
// src/cache/answer-store.ts, which keeps the memory state these rows back.
import type { Database } from "bun:sqlite";
import { parseStored, type JsonObject } from "../../lib/json.ts";

/** A stored answer as the cache keeps it (src/cache/answer-store-types.ts CachedAnswer). */
export interface CacheRecord {
  id: number;
  projectId: string;
  key: string;
  partition: string;
  model: string;
  provider: string;
  body: string;
  usage: JsonObject;
  tags: string[];
  question: string | null;
  createdAt: number;
  expiresAt: number;
}

/** One queued change for a (project, key): the row is deleted, then `entry` (if any) inserted. */
export interface CacheWrite {
  projectId: string;
  key: string;
  entry: CacheRecord | null;
}

export interface CacheKeyRow {
  id: number;
  project_id: string;
  key: string;
  expires_at: number;
}

export interface SemanticRow {
  id: number;
  project_id: string;
  key: string;
  partition: string;
  question: string;
  /** "sandbox" for a test key's simulated answer (never embedded by a live provider). */
  provider: string;
}

interface EntryRow {
  id: number; project_id: string; key: string; partition: string; model: string; provider: string;
  body: string; usage: string; question: string | null; created_at: number; expires_at: number; tags: string;
}

const fromRow = (r: EntryRow): CacheRecord => ({
  id: r.id, projectId: r.project_id, key: r.key, partition: r.partition, model: r.model, provider: r.provider,
  body: r.body, usage: parseStored<JsonObject>(r.usage, {}), tags: parseStored<string[]>(r.tags, []), question: r.question,
  createdAt: r.created_at, expiresAt: r.expires_at,
});

export function cacheEntriesRepo(db: Database) {
  const keysStmt = db.query<CacheKeyRow, [number]>(
    "SELECT id, project_id, key, expires_at FROM cache_entries WHERE expires_at > ?",
  );
  const countStmt = db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM cache_entries WHERE expires_at > ?");
  const lastIdStmt = db.query<{ n: number | null }, []>(
    "SELECT max(coalesce((SELECT max(id) FROM cache_entries), 0), coalesce((SELECT value FROM cache_meta WHERE name = 'last_id'), 0)) AS n",
  );
  const byIdStmt = db.query<EntryRow, [number, string]>(
    `SELECT e.*, (SELECT json_group_array(tag) FROM cache_tags WHERE entry_id = e.id) AS tags
     FROM cache_entries e WHERE e.id = ? AND e.project_id = ?`,
  );
  const deleteKeyStmt = db.query<unknown, [string, string]>("DELETE FROM cache_entries WHERE project_id = ? AND key = ?");
  const insertStmt = db.query<unknown, [number, string, string, string, string, string, string, string, string | null, number, number]>(
    `INSERT INTO cache_entries (id, project_id, key, partition, model, provider, body, usage, question, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertTagStmt = db.query<unknown, [number, string, string]>(
    "INSERT OR IGNORE INTO cache_tags (entry_id, project_id, tag) VALUES (?, ?, ?)",
  );
  const lastIdMarkStmt = db.query<unknown, [number]>(
    `INSERT INTO cache_meta (name, value) VALUES ('last_id', ?1)
     ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)`,
  );
  const deleteProjectStmt = db.query<{ id: number; key: string }, [string]>(
    "DELETE FROM cache_entries WHERE project_id = ? RETURNING id, key",
  );
  // json_each takes the whole tag list as one parameter, so one prepared statement serves 1..100 tags.
  const deleteTagsStmt = db.query<{ id: number; key: string }, [string, string]>(
    `DELETE FROM cache_entries WHERE project_id = ?1 AND id IN
       (SELECT entry_id FROM cache_tags WHERE project_id = ?1 AND tag IN (SELECT value FROM json_each(?2)))
     RETURNING id, key`,
  );
  const sweepStmt = db.query<{ id: number; project_id: string; key: string }, [number, number]>(
    `DELETE FROM cache_entries WHERE id IN (SELECT id FROM cache_entries WHERE expires_at <= ? LIMIT ?)
     RETURNING id, project_id, key`,
  );
  const semanticStmt = db.query<SemanticRow, [number]>(
    "SELECT id, project_id, key, partition, question, provider FROM cache_entries WHERE question IS NOT NULL AND expires_at > ?",
  );

  const writeBatch = db.transaction((writes: CacheWrite[], lastId: number) => {
    for (const w of writes) {
      deleteKeyStmt.run(w.projectId, w.key);
      const e = w.entry;
      if (e === null) continue;
      insertStmt.run(e.id, e.projectId, e.key, e.partition, e.model, e.provider, e.body, JSON.stringify(e.usage), e.question, e.createdAt, e.expiresAt);
      for (const tag of e.tags) insertTagStmt.run(e.id, e.projectId, tag);
    }
    lastIdMarkStmt.run(lastId);
  });

  return {
    /** Every live key, streamed: the store's key index is built from it at start. */
    liveKeys: (now: number): IterableIterator<CacheKeyRow> => keysStmt.iterate(now),
    countLive: (now: number): number => countStmt.get(now)?.n ?? 0,
    /** The highest id any row or batch ever had; new ids start above it. */
    lastId: (): number => lastIdStmt.get()?.n ?? 0,
    byId(projectId: string, id: number): CacheRecord | null {
      const row = byIdStmt.get(id, projectId);
      return row ? fromRow(row) : null;
    },
    /** Applies queued writes in one transaction (replacing same-key rows and their tags). */
    write(writes: CacheWrite[], lastId: number): void {
      writeBatch.immediate(writes, lastId);
    },
    deleteProject: (projectId: string): Array<{ id: number; key: string }> => deleteProjectStmt.all(projectId),
    /** Deletes the project's entries carrying any of `tags`. */
    deleteByTags: (projectId: string, tags: string[]): Array<{ id: number; key: string }> =>
      deleteTagsStmt.all(projectId, JSON.stringify(tags)),
    /** Deletes at most `limit` entries expired at `now`. */
    deleteExpired: (now: number, limit: number): Array<{ id: number; project_id: string; key: string }> => sweepStmt.all(now, limit),
    semanticRows: (now: number): IterableIterator<SemanticRow> => semanticStmt.iterate(now),
  };
}

export type CacheEntriesRepo = ReturnType<typeof cacheEntriesRepo>;
