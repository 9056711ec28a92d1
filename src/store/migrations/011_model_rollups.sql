-- Per-model rollups for the dashboard (docs/dashboard.md "JSON API"): like metrics_rollups
-- (migration 005), minute rows written with the log rows they count and compacted into hour rows,
-- keyed also by model (selected, else requested; '' when none), task kind ('' when none) and test
-- (1: test-mode requests, which recommendations leave out).
CREATE TABLE model_rollups (
  bucket_ms       INTEGER NOT NULL,
  start_ms        INTEGER NOT NULL,
  project_id      TEXT NOT NULL,
  model           TEXT NOT NULL,
  task            TEXT NOT NULL,
  test            INTEGER NOT NULL,
  requests        INTEGER NOT NULL DEFAULT 0,
  failed          INTEGER NOT NULL DEFAULT 0,
  cost            REAL NOT NULL DEFAULT 0,
  saved           REAL NOT NULL DEFAULT 0,
  cache_exact     INTEGER NOT NULL DEFAULT 0,
  cache_semantic  INTEGER NOT NULL DEFAULT 0,
  -- What the cache hits saved: their `saved` dollars, and their input and output tokens.
  hit_saved       REAL NOT NULL DEFAULT 0,
  hit_input_tokens  INTEGER NOT NULL DEFAULT 0,
  hit_output_tokens INTEGER NOT NULL DEFAULT 0,
  -- Latency of every request that is not a caller-side failure (src/lib/histogram.ts pairs).
  latency         BLOB NOT NULL DEFAULT x'',
  PRIMARY KEY (bucket_ms, start_ms, project_id, model, task, test)
) WITHOUT ROWID;
CREATE INDEX model_rollups_project ON model_rollups(project_id, bucket_ms, start_ms);
-- The compaction mark lives in metrics_meta under the name 'model_hours_before'.

-- Backfill: minute rows for the log rows of the last 32 days (older minute rows would be pruned at
-- once), so an upgraded gw's charts cover its existing log; compaction makes their hour rows. Their
-- latency histograms stay empty (no per-model p95 for requests logged before this migration).
INSERT INTO model_rollups (bucket_ms, start_ms, project_id, model, task, test, requests, failed, cost, saved,
  cache_exact, cache_semantic, hit_saved, hit_input_tokens, hit_output_tokens)
SELECT 60000, created_at - created_at % 60000, project_id, coalesce(selected_model, requested_model, ''), coalesce(task, ''), test,
  count(*), sum(error_category IS NOT NULL), sum(cost), sum(saved), sum(coalesce(cache, '') = 'exact'), sum(coalesce(cache, '') = 'semantic'),
  sum(CASE WHEN cache IN ('exact', 'semantic') THEN saved ELSE 0 END),
  sum(CASE WHEN cache IN ('exact', 'semantic') THEN input_tokens ELSE 0 END),
  sum(CASE WHEN cache IN ('exact', 'semantic') THEN output_tokens ELSE 0 END)
FROM requests WHERE created_at >= (CAST(strftime('%s', 'now') AS INTEGER) - 32 * 86400) * 1000
GROUP BY 2, 3, 4, 5, 6;
