-- PostgreSQL schema, part 1 (docs/scale-out.md "PostgreSQL"): projects, keys, sealed secrets, the
-- money tables, idempotency results, feedback, cache metadata, dashboard sessions and the audit log.
-- Times are epoch milliseconds (BIGINT) and money integer nano-USD (BIGINT), as in SQLite's ledger.
CREATE TABLE projects (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  plan         TEXT NOT NULL,
  billing_mode TEXT NOT NULL,
  -- nano-USD; NULL: no limit set. The balance itself lives in accounts.
  credit_limit BIGINT,
  policy       TEXT NOT NULL DEFAULT '{}',
  created_at   BIGINT NOT NULL
);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  project_id   TEXT NOT NULL REFERENCES projects(id),
  name         TEXT,
  key_hash     TEXT NOT NULL UNIQUE,
  mode         TEXT NOT NULL,
  scopes       TEXT NOT NULL,
  byok         BOOLEAN NOT NULL DEFAULT false,
  ip_allowlist TEXT,
  created_at   BIGINT NOT NULL,
  revoked_at   BIGINT
);
CREATE INDEX api_keys_project ON api_keys(project_id);

-- Sealed with AES-256-GCM like SQLite's; never returned by any endpoint.
CREATE TABLE provider_keys (
  project_id TEXT NOT NULL REFERENCES projects(id),
  provider   TEXT NOT NULL,
  sealed_key TEXT NOT NULL,
  base_url   TEXT,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (project_id, provider)
);

CREATE TABLE project_sso (
  project_id      TEXT PRIMARY KEY,
  issuer          TEXT NOT NULL,
  client_id       TEXT NOT NULL,
  client_secret   TEXT NOT NULL,
  allowed_domains TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL
);

-- One row per project with money to check: what instances reserve against. A reservation is one
-- conditional UPDATE of `reserved` on this row; settle and release change it in the transaction
-- that writes their ledger row. balance = credits - charges, exactly the ledger's sums.
CREATE TABLE accounts (
  project_id TEXT PRIMARY KEY,
  balance    BIGINT NOT NULL DEFAULT 0,
  reserved   BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0)
);

-- The append-only ledger (kinds credit, hold, release, charge, cache), as SQLite's migration 007.
CREATE TABLE ledger (
  seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id    TEXT NOT NULL,
  kind          TEXT NOT NULL,
  amount        BIGINT NOT NULL,
  request_id    TEXT,
  model         TEXT,
  input_tokens  BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cost          BIGINT NOT NULL DEFAULT 0,
  saved         BIGINT NOT NULL DEFAULT 0,
  byok          BOOLEAN NOT NULL DEFAULT false,
  note          TEXT,
  created_at    BIGINT NOT NULL
);
CREATE INDEX ledger_project_kind_time ON ledger(project_id, kind, created_at) INCLUDE (amount);
CREATE INDEX ledger_credits ON ledger(seq) WHERE kind = 'credit';
-- Once per request: one hold, and one closing row (charge, cache or release). A replayed settle or
-- release finds its row taken and changes nothing.
CREATE UNIQUE INDEX ledger_hold_once ON ledger(project_id, request_id) WHERE kind = 'hold';
CREATE UNIQUE INDEX ledger_close_once ON ledger(project_id, request_id) WHERE kind IN ('charge', 'cache', 'release');

CREATE TABLE ledger_open_holds (
  project_id  TEXT NOT NULL,
  request_id  TEXT NOT NULL,
  amount      BIGINT NOT NULL,
  -- The spend_counters rows the hold reserved in ('daily/2026-11-26'), and the month whose plan
  -- allowance it holds a place in: settle and release give back exactly these.
  budget_keys TEXT[] NOT NULL DEFAULT '{}',
  slot_key    TEXT,
  created_at  BIGINT NOT NULL,
  PRIMARY KEY (project_id, request_id)
);
-- Holds left open by an instance that died are found by age.
CREATE INDEX ledger_open_holds_age ON ledger_open_holds(created_at);

-- Spending per budget period (period 'daily' or 'monthly', key '2026-11-26' or '2026-11'): spent
-- and reserved kept beside the account so a `block` budget is one conditional UPDATE too.
CREATE TABLE spend_counters (
  project_id TEXT NOT NULL,
  period     TEXT NOT NULL,
  period_key TEXT NOT NULL,
  spent      BIGINT NOT NULL DEFAULT 0,
  reserved   BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  -- Answered requests in the period (the plan's monthly allowance) and those holding a place.
  requests   BIGINT NOT NULL DEFAULT 0,
  inflight   BIGINT NOT NULL DEFAULT 0 CHECK (inflight >= 0),
  PRIMARY KEY (project_id, period, period_key)
);

CREATE TABLE budget_events (
  id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id TEXT NOT NULL,
  period     TEXT NOT NULL,
  period_key TEXT NOT NULL,
  action     TEXT NOT NULL,
  budget     BIGINT NOT NULL,
  spent      BIGINT NOT NULL,
  reserved   BIGINT NOT NULL,
  request_id TEXT,
  created_at BIGINT NOT NULL,
  UNIQUE (project_id, period, period_key, action)
);

-- Idempotency results (the running claim itself is a Redis lock); body: the exact bytes sent.
CREATE TABLE idempotency_keys (
  project_id  TEXT NOT NULL,
  key         TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  request_id  TEXT NOT NULL,
  state       TEXT NOT NULL,
  status      INTEGER,
  headers     TEXT,
  body        BYTEA,
  created_at  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL,
  PRIMARY KEY (project_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at);

CREATE TABLE feedback (
  project_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  model_id   TEXT,
  task       TEXT,
  test       BOOLEAN NOT NULL,
  counted    BOOLEAN NOT NULL,
  rating     SMALLINT NOT NULL CHECK (rating BETWEEN 1 AND 5),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (project_id, request_id)
);
CREATE INDEX feedback_quality ON feedback(counted, test, model_id, task);

-- The response cache's metadata and vectors (the answers themselves live in Redis). Ids come from
-- the identity, so instances never hand out the same one; `vector`: float32 little-endian.
CREATE TABLE cache_entries (
  id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  project_id TEXT NOT NULL,
  key        TEXT NOT NULL,
  partition  TEXT NOT NULL,
  model      TEXT NOT NULL,
  provider   TEXT NOT NULL,
  usage      TEXT NOT NULL,
  question   TEXT,
  vector     BYTEA,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  UNIQUE (project_id, key)
);
CREATE INDEX cache_entries_expiry ON cache_entries(expires_at);

CREATE TABLE cache_tags (
  entry_id   BIGINT NOT NULL REFERENCES cache_entries(id) ON DELETE CASCADE,
  project_id TEXT NOT NULL,
  tag        TEXT NOT NULL,
  PRIMARY KEY (entry_id, tag)
);
CREATE INDEX cache_tags_project_tag ON cache_tags(project_id, tag);

-- Only the SHA-256 of the cookie's id is stored.
CREATE TABLE dashboard_sessions (
  token_hash TEXT PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,
  role       TEXT NOT NULL CHECK (role IN ('operator', 'project')),
  project_id TEXT,
  key_id     TEXT,
  scopes     TEXT NOT NULL,
  email      TEXT,
  csrf_token TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);

-- Append-only: the trigger refuses every UPDATE and DELETE.
CREATE TABLE audit_log (
  id          TEXT PRIMARY KEY,
  created_at  BIGINT NOT NULL,
  actor_type  TEXT NOT NULL,
  actor_id    TEXT,
  actor_email TEXT,
  source_ip   TEXT,
  action      TEXT NOT NULL,
  project_id  TEXT,
  target      TEXT,
  outcome     TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
  status      INTEGER,
  details     TEXT NOT NULL
);
CREATE INDEX audit_log_project ON audit_log(project_id, id);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
