-- The response cache's stored answers (docs/cache.md "Storage"). One row per
-- (project, exact key); ids are handed out by the process (src/cache/answer-store.ts) because an
-- entry is visible before its row is written, and they double as the semantic index's labels.
CREATE TABLE cache_entries (
  id         INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  key        TEXT NOT NULL,
  partition  TEXT NOT NULL,
  model      TEXT NOT NULL,
  provider   TEXT NOT NULL,
  body       TEXT NOT NULL,
  usage      TEXT NOT NULL,
  question   TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  UNIQUE (project_id, key)
);
-- The expiry sweep deletes in small batches by this index.
CREATE INDEX cache_entries_expiry ON cache_entries(expires_at);

-- Tags per entry for POST /cache/invalidate; deleting an entry deletes its tags (cascade), so
-- the sweep and invalidation delete entries only. project_id is repeated so a tag lookup never
-- reaches another project's entries.
CREATE TABLE cache_tags (
  entry_id   INTEGER NOT NULL REFERENCES cache_entries(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  tag        TEXT NOT NULL,
  PRIMARY KEY (entry_id, tag)
) WITHOUT ROWID;
CREATE INDEX cache_tags_project_tag ON cache_tags(project_id, tag);

-- The highest entry id ever handed out, written with every batch: an id given to an entry that
-- was invalidated before its row was written is never given again after a restart (the semantic
-- index may still remember it).
CREATE TABLE cache_meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
