-- PostgreSQL schema, part 2 (docs/scale-out.md "PostgreSQL"): the request log and traces,
-- partitioned by UTC day on created_at (epoch ms) so retention drops whole partitions
-- (src/store/postgres/partitions.ts makes them), and the per-minute rollups written with them.
CREATE TABLE requests (
  id              TEXT NOT NULL,
  project_id      TEXT NOT NULL,
  key_id          TEXT,
  trace_id        TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  endpoint        TEXT NOT NULL,
  requested_model TEXT,
  selected_model  TEXT,
  provider        TEXT,
  task            TEXT,
  task_subtype    TEXT,
  input_tokens    BIGINT NOT NULL DEFAULT 0,
  output_tokens   BIGINT NOT NULL DEFAULT 0,
  -- nano-USD (SQLite's log keeps USD floats; the PostgreSQL repos convert at the boundary).
  cost            BIGINT NOT NULL DEFAULT 0,
  saved           BIGINT NOT NULL DEFAULT 0,
  cache           TEXT,
  status          INTEGER NOT NULL,
  error_code      TEXT,
  error_message   TEXT,
  error_category  TEXT,
  latency_ms      INTEGER NOT NULL,
  ttft_ms         INTEGER,
  overhead_ms     DOUBLE PRECISION,
  fallbacks       INTEGER NOT NULL DEFAULT 0,
  workflow_id     TEXT,
  step            TEXT,
  tags            TEXT[] NOT NULL DEFAULT '{}',
  stream          BOOLEAN NOT NULL DEFAULT false,
  test            BOOLEAN NOT NULL DEFAULT false,
  -- A key of a partitioned table must hold the partition key.
  PRIMARY KEY (project_id, id, created_at)
) PARTITION BY RANGE (created_at);
CREATE INDEX requests_project_model ON requests(project_id, selected_model, id);
CREATE INDEX requests_project_status ON requests(project_id, status, id);
CREATE INDEX requests_project_trace ON requests(project_id, trace_id, id);
CREATE INDEX requests_project_workflow ON requests(project_id, workflow_id, id) WHERE workflow_id IS NOT NULL;
CREATE INDEX requests_project_cache ON requests(project_id, cache, id) WHERE cache IS NOT NULL;
CREATE INDEX requests_project_error_category ON requests(project_id, error_category, id) WHERE error_category IS NOT NULL;
CREATE INDEX requests_project_test ON requests(project_id, id) WHERE test;
-- Tags are an array on the row: one GIN index instead of SQLite's request_tags table and triggers.
CREATE INDEX requests_tags ON requests USING gin (tags) WHERE tags <> '{}';

CREATE TABLE traces (
  project_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  data       TEXT NOT NULL,
  PRIMARY KEY (project_id, request_id, created_at)
) PARTITION BY RANGE (created_at);

-- Stored trace bytes per project: the log writer adds each batch's bytes, and dropping a day's
-- partition subtracts what it held (a dropped partition fires no DELETE trigger).
CREATE TABLE trace_usage (
  project_id TEXT PRIMARY KEY,
  bytes      BIGINT NOT NULL
);

CREATE TABLE metrics_rollups (
  bucket_ms     BIGINT NOT NULL,
  start_ms      BIGINT NOT NULL,
  project_id    TEXT NOT NULL,
  requests      BIGINT NOT NULL DEFAULT 0,
  failed        BIGINT NOT NULL DEFAULT 0,
  caller_failed BIGINT NOT NULL DEFAULT 0,
  fallbacks     BIGINT NOT NULL DEFAULT 0,
  cache_hits    BIGINT NOT NULL DEFAULT 0,
  input_tokens  BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cost          BIGINT NOT NULL DEFAULT 0,
  saved         BIGINT NOT NULL DEFAULT 0,
  errors        JSONB NOT NULL DEFAULT '{}',
  -- Mergeable histograms (src/lib/histogram.ts pairs): instances add into the same minute row.
  latency       BYTEA NOT NULL DEFAULT '\x',
  ttft          BYTEA NOT NULL DEFAULT '\x',
  PRIMARY KEY (bucket_ms, start_ms, project_id)
);
CREATE INDEX metrics_rollups_project ON metrics_rollups(project_id, bucket_ms, start_ms);

CREATE TABLE model_rollups (
  bucket_ms         BIGINT NOT NULL,
  start_ms          BIGINT NOT NULL,
  project_id        TEXT NOT NULL,
  model             TEXT NOT NULL,
  task              TEXT NOT NULL,
  test              BOOLEAN NOT NULL,
  requests          BIGINT NOT NULL DEFAULT 0,
  failed            BIGINT NOT NULL DEFAULT 0,
  cost              BIGINT NOT NULL DEFAULT 0,
  saved             BIGINT NOT NULL DEFAULT 0,
  cache_exact       BIGINT NOT NULL DEFAULT 0,
  cache_semantic    BIGINT NOT NULL DEFAULT 0,
  hit_saved         BIGINT NOT NULL DEFAULT 0,
  hit_input_tokens  BIGINT NOT NULL DEFAULT 0,
  hit_output_tokens BIGINT NOT NULL DEFAULT 0,
  latency           BYTEA NOT NULL DEFAULT '\x',
  PRIMARY KEY (bucket_ms, start_ms, project_id, model, task, test)
);
CREATE INDEX model_rollups_project ON model_rollups(project_id, bucket_ms, start_ms);

CREATE TABLE status_rollups (
  bucket_ms BIGINT NOT NULL,
  start_ms  BIGINT NOT NULL,
  component TEXT NOT NULL,
  requests  BIGINT NOT NULL DEFAULT 0,
  ok        BIGINT NOT NULL DEFAULT 0,
  latency   BYTEA NOT NULL DEFAULT '\x',
  PRIMARY KEY (component, bucket_ms, start_ms)
);
CREATE INDEX status_rollups_time ON status_rollups(bucket_ms, start_ms);

-- Compaction marks ('hours_before', 'model_hours_before').
CREATE TABLE metrics_meta (
  name  TEXT PRIMARY KEY,
  value BIGINT NOT NULL
);
