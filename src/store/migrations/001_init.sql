-- Projects, API keys, the request log and its traces (docs/api.md "Request log", "Admin API").
CREATE TABLE projects (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  plan         TEXT NOT NULL,
  billing_mode TEXT NOT NULL,
  balance      REAL NOT NULL DEFAULT 0,
  credit_limit REAL,
  policy       TEXT NOT NULL DEFAULT '{}',
  created_at   INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  project_id   TEXT NOT NULL REFERENCES projects(id),
  name         TEXT,
  key_hash     TEXT NOT NULL UNIQUE,
  mode         TEXT NOT NULL,
  scopes       TEXT NOT NULL,
  byok         INTEGER NOT NULL DEFAULT 0,
  ip_allowlist TEXT,
  created_at   INTEGER NOT NULL,
  revoked_at   INTEGER
);
CREATE INDEX api_keys_project ON api_keys(project_id);

-- Keyed by (project_id, id), the order every read uses (ids sort by time, so this is "newest
-- first" per project); WITHOUT ROWID stores rows in that key's B-tree, one insert fewer per row.
CREATE TABLE requests (
  id              TEXT NOT NULL,
  project_id      TEXT NOT NULL,
  key_id          TEXT,
  trace_id        TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  endpoint        TEXT NOT NULL,
  requested_model TEXT,
  selected_model  TEXT,
  provider        TEXT,
  task            TEXT,
  task_subtype    TEXT,
  input_tokens    INTEGER NOT NULL DEFAULT 0,
  output_tokens   INTEGER NOT NULL DEFAULT 0,
  cost            REAL NOT NULL DEFAULT 0,
  saved           REAL NOT NULL DEFAULT 0,
  cache           TEXT,
  status          INTEGER NOT NULL,
  error_code      TEXT,
  error_message   TEXT,
  error_category  TEXT,
  latency_ms      INTEGER NOT NULL,
  ttft_ms         INTEGER,
  overhead_ms     REAL,
  fallbacks       INTEGER NOT NULL DEFAULT 0,
  workflow_id     TEXT,
  step            TEXT,
  tags            TEXT NOT NULL DEFAULT '[]',
  stream          INTEGER NOT NULL DEFAULT 0,
  test            INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, id)
) WITHOUT ROWID;
-- One index per filter of GET /requests; each ends in id so a filtered page is an index range.
CREATE INDEX requests_project_model ON requests(project_id, selected_model, id);
CREATE INDEX requests_project_status ON requests(project_id, status, id);
CREATE INDEX requests_project_trace ON requests(project_id, trace_id, id);
-- Most requests belong to no workflow; a partial index skips them on insert.
CREATE INDEX requests_project_workflow ON requests(project_id, workflow_id, id) WHERE workflow_id IS NOT NULL;

-- A rowid table: traces are large (1-2 KB), and rowid order appends them densely; keyed by
-- (project_id, request_id) in a separate index they would split pages and waste most of each.
CREATE TABLE traces (
  project_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  data       TEXT NOT NULL,
  PRIMARY KEY (project_id, request_id)
);
