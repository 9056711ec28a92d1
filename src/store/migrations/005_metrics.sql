-- Metrics rollups (docs/observability.md "Rollups, not scans"): minute rows written with the log
-- rows they count, compacted into hour rows once an hour is over. `bucket_ms` is 60000 or 3600000;
-- histograms are (bucket, count) uint32 pairs (src/lib/histogram.ts).
CREATE TABLE metrics_rollups (
  bucket_ms       INTEGER NOT NULL,
  start_ms        INTEGER NOT NULL,
  project_id      TEXT NOT NULL,
  requests        INTEGER NOT NULL DEFAULT 0,
  -- Requests that ended in an error (error_category set), and those of them on the caller's side.
  failed          INTEGER NOT NULL DEFAULT 0,
  caller_failed   INTEGER NOT NULL DEFAULT 0,
  -- Requests answered by a fallback (fallbacks >= 1).
  fallbacks       INTEGER NOT NULL DEFAULT 0,
  cache_hits      INTEGER NOT NULL DEFAULT 0,
  input_tokens    INTEGER NOT NULL DEFAULT 0,
  output_tokens   INTEGER NOT NULL DEFAULT 0,
  cost            REAL NOT NULL DEFAULT 0,
  saved           REAL NOT NULL DEFAULT 0,
  -- {"<category>": count}
  errors          TEXT NOT NULL DEFAULT '{}',
  -- Latency of every request that is not a caller-side failure; ttft of requests that have one.
  latency         BLOB NOT NULL DEFAULT x'',
  ttft            BLOB NOT NULL DEFAULT x'',
  -- Time first: the current minute's rows of every project share a page, so a log batch touching
  -- several projects dirties one rollup page, not one per project; compaction and pruning are
  -- ranges of this key.
  PRIMARY KEY (bucket_ms, start_ms, project_id)
) WITHOUT ROWID;
-- Reads are per project. Rows are updated in place (UPDATE of non-key columns), so this index is
-- written once per (project, minute), when the row is created, not with every batch.
CREATE INDEX metrics_rollups_project ON metrics_rollups(project_id, bucket_ms, start_ms);

-- `hours_before`: every hour that starts before this has its hour rows; minute rows of those
-- hours still count into the hour row when a late request-log row arrives.
CREATE TABLE metrics_meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
