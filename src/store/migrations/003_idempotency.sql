-- Idempotency keys (docs/idempotency.md "Storage and retention"): one row per (project, key); the
-- primary key makes the claim one atomic INSERT. `state`: running, stored or not_kept; the body is
-- the exact bytes sent. A rowid table, not WITHOUT ROWID: stored bodies can be large.
CREATE TABLE idempotency_keys (
  project_id  TEXT NOT NULL,
  key         TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  request_id  TEXT NOT NULL,
  state       TEXT NOT NULL,
  status      INTEGER,
  headers     TEXT,
  body        BLOB,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
);
-- The periodic sweep deletes expired rows in small batches by this index.
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);
