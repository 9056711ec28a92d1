-- PostgreSQL schema, part 4 (docs/scale-out.md "Request log and metrics"): rollup counts that
-- instances add into the same minute row in one INSERT ... ON CONFLICT, with no read first. The
-- latency histograms become {bucket: count} objects (src/lib/histogram.ts buckets), summed by key
-- as the error counts are.
CREATE FUNCTION gw_add_counts(a JSONB, b JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb) FROM (
    SELECT k, sum(v::bigint) AS n FROM (
      SELECT key AS k, value AS v FROM jsonb_each_text(a)
      UNION ALL SELECT key, value FROM jsonb_each_text(b)
    ) s GROUP BY k
  ) t
$$;

-- No instance has written these columns yet (the rollup writer arrives with this migration).
ALTER TABLE metrics_rollups
  DROP COLUMN latency,
  DROP COLUMN ttft,
  ADD COLUMN latency JSONB NOT NULL DEFAULT '{}',
  ADD COLUMN ttft JSONB NOT NULL DEFAULT '{}';
