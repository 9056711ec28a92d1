-- Projects, API keys, the request log and its traces (gateway-api.md 2.1, 2.2; contracts.md 3).
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

CREATE TABLE requests (
  id              TEXT PRIMARY KEY,
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
  test            INTEGER NOT NULL DEFAULT 0
);
-- Ids sort by time, so (project_id, id DESC) serves "newest first" and the cursor.
CREATE INDEX requests_project_id ON requests(project_id, id);
CREATE INDEX requests_project_model ON requests(project_id, selected_model, id);
CREATE INDEX requests_project_status ON requests(project_id, status, id);
CREATE INDEX requests_project_workflow ON requests(project_id, workflow_id, id);
CREATE INDEX requests_project_trace ON requests(project_id, trace_id, id);

CREATE TABLE traces (
  request_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  data       TEXT NOT NULL
);
