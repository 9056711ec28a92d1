-- PostgreSQL schema, part 13 (docs/scale-out.md "Request log and metrics"): hour rows of the metrics
-- rollups. A leader job folds the minute rows of finished hours into hour rows (their sums) and marks
-- them folded, one transaction per batch; a later write into a folded minute (a batch retried after
-- an outage) adds its difference to the hour in the same statement (the trigger below), so each
-- minute is counted in its hour exactly once. Reads sum the hours inside a range, the minutes at its
-- edges and the minutes not folded yet.
ALTER TABLE metrics_rollups ADD COLUMN folded BOOLEAN NOT NULL DEFAULT false;
-- The reads' unfolded minutes of one project, and the job's oldest unfolded minutes of all.
CREATE INDEX metrics_rollups_unfolded ON metrics_rollups (project_id, start_ms) WHERE bucket_ms = 60000 AND NOT folded;
CREATE INDEX metrics_rollups_to_fold ON metrics_rollups (start_ms, project_id) WHERE bucket_ms = 60000 AND NOT folded;

-- {key: count} objects summed over rows, and one minus another (zero counts left out).
CREATE AGGREGATE gw_sum_counts(JSONB) (SFUNC = gw_add_counts, STYPE = JSONB, INITCOND = '{}');
CREATE FUNCTION gw_sub_counts(a JSONB, b JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(jsonb_object_agg(k, n) FILTER (WHERE n <> 0), '{}'::jsonb) FROM (
    SELECT k, sum(v) AS n FROM (
      SELECT key AS k, value::bigint AS v FROM jsonb_each_text(a)
      UNION ALL SELECT key, -(value::bigint) FROM jsonb_each_text(b)
    ) s GROUP BY k
  ) t
$$;

-- A folded minute written again: its hour gets the difference.
CREATE FUNCTION gw_fold_late() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO metrics_rollups AS h (bucket_ms, start_ms, project_id, requests, failed, caller_failed, fallbacks, cache_hits, input_tokens, output_tokens, cost, saved, errors, latency, ttft)
  VALUES (3600000, OLD.start_ms - OLD.start_ms % 3600000, OLD.project_id, NEW.requests - OLD.requests, NEW.failed - OLD.failed, NEW.caller_failed - OLD.caller_failed, NEW.fallbacks - OLD.fallbacks, NEW.cache_hits - OLD.cache_hits, NEW.input_tokens - OLD.input_tokens, NEW.output_tokens - OLD.output_tokens, NEW.cost - OLD.cost, NEW.saved - OLD.saved, gw_sub_counts(NEW.errors, OLD.errors), gw_sub_counts(NEW.latency, OLD.latency), gw_sub_counts(NEW.ttft, OLD.ttft))
  ON CONFLICT (bucket_ms, start_ms, project_id) DO UPDATE SET
    requests = h.requests + excluded.requests,
    failed = h.failed + excluded.failed,
    caller_failed = h.caller_failed + excluded.caller_failed,
    fallbacks = h.fallbacks + excluded.fallbacks,
    cache_hits = h.cache_hits + excluded.cache_hits,
    input_tokens = h.input_tokens + excluded.input_tokens,
    output_tokens = h.output_tokens + excluded.output_tokens,
    cost = h.cost + excluded.cost,
    saved = h.saved + excluded.saved,
    errors = gw_add_counts(h.errors, excluded.errors),
    latency = gw_add_counts(h.latency, excluded.latency),
    ttft = gw_add_counts(h.ttft, excluded.ttft);
  RETURN NEW;
END
$$;
CREATE TRIGGER metrics_rollups_fold_late BEFORE UPDATE ON metrics_rollups
  FOR EACH ROW WHEN (OLD.folded AND OLD.bucket_ms = 60000) EXECUTE FUNCTION gw_fold_late();
