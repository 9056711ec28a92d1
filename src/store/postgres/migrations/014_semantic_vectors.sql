-- The semantic cache's shared entries (docs/scale-out.md "Semantic cache"): the vector of each stored
-- answer's question with its metadata, so an instance indexes another's answer without embedding it
-- again. `id` is the answer's id in the Redis answer store; `embedder` names the model and dimensions,
-- and only vectors of this instance's embedder are read. The answer itself stays in Redis.
CREATE TABLE semantic_vectors (
  id         BIGINT PRIMARY KEY,
  project_id TEXT NOT NULL,
  partition  TEXT NOT NULL,
  embedder   TEXT NOT NULL,
  vector     BYTEA NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX semantic_vectors_expiry ON semantic_vectors(expires_at);
CREATE INDEX semantic_vectors_project ON semantic_vectors(project_id);

-- Never written: the exact cache's answers, tags and metadata are Redis's in this mode (migration 001
-- made these before that was decided).
DROP TABLE cache_tags;
DROP TABLE cache_entries;
