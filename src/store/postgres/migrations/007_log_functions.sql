-- PostgreSQL schema, part 7 (docs/scale-out.md "Request log and metrics"): a request-log batch
-- written by one call, so one round trip, in the call's own transaction (src/store/postgres/request-log.ts).

-- p_rows: the requests' stored values; p_traces: {n, project_id, request_id, created_at, data, bytes},
-- n their order; p_minutes: the rows' rollup counts summed per minute and project; p_deltas: each row's
-- own, keyed by project_id and request_id, needed when some rows were there already (when it is null
-- the call fails with GW001, changing nothing, and is made again with it); p_budget: trace bytes per
-- project (0: none). Rows a retry already wrote are skipped, and only the rows inserted now
-- get traces and rollups. Returns how many rows were inserted. Any error rolls the whole call back.
CREATE FUNCTION gw_write_log(p_rows JSONB, p_traces JSONB, p_minutes JSONB, p_deltas JSONB, p_budget BIGINT)
RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  fresh_p TEXT[];
  fresh_i TEXT[];
  -- Every row inserted (no retry): nothing to filter, and the rollups are p_minutes as they are.
  whole BOOLEAN;
  minutes JSONB := p_minutes;
BEGIN
  WITH ins AS (
    INSERT INTO requests (id, project_id, key_id, trace_id, created_at, endpoint, requested_model, selected_model,
      provider, task, task_subtype, input_tokens, output_tokens, cost, saved, cache, status, error_code, error_message,
      error_category, latency_ms, ttft_ms, overhead_ms, fallbacks, workflow_id, step, tags, stream, test)
    SELECT r.id, r.project_id, r.key_id, r.trace_id, r.created_at, r.endpoint, r.requested_model, r.selected_model,
      r.provider, r.task, r.task_subtype, r.input_tokens, r.output_tokens, r.cost, r.saved, r.cache, r.status, r.error_code,
      r.error_message, r.error_category, r.latency_ms, r.ttft_ms, r.overhead_ms, r.fallbacks, r.workflow_id, r.step,
      ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.stream, r.test
    FROM jsonb_to_recordset(p_rows) AS r(id text, project_id text, key_id text, trace_id text, created_at bigint,
      endpoint text, requested_model text, selected_model text, provider text, task text, task_subtype text,
      input_tokens bigint, output_tokens bigint, cost bigint, saved bigint, cache text, status integer, error_code text,
      error_message text, error_category text, latency_ms integer, ttft_ms integer, overhead_ms double precision,
      fallbacks integer, workflow_id text, step text, tags jsonb, stream boolean, test boolean)
    -- Only a duplicate key (a retry) is skipped; any other failure fails the call.
    ON CONFLICT DO NOTHING RETURNING project_id, id
  )
  SELECT array_agg(ins.project_id), array_agg(ins.id) INTO fresh_p, fresh_i FROM ins;
  IF fresh_i IS NULL THEN
    RETURN 0;
  END IF;
  whole := array_length(fresh_i, 1) = jsonb_array_length(p_rows);
  IF NOT whole AND p_deltas IS NULL THEN
    RAISE EXCEPTION 'gw_write_log: some rows are stored already; send each row''s rollup counts' USING ERRCODE = 'GW001';
  END IF;

  IF jsonb_array_length(p_traces) > 0 THEN
    -- Over the budget a row is still written, its trace is not (docs/observability.md "Trace
    -- storage"). The usage rows are locked in project order, so concurrent batches check it one
    -- after the other and never deadlock.
    IF p_budget > 0 THEN
      PERFORM 1 FROM trace_usage WHERE project_id IN (
        SELECT t.project_id FROM jsonb_to_recordset(p_traces) AS t(project_id text, request_id text)
        WHERE whole OR (t.project_id, t.request_id) IN (SELECT * FROM unnest(fresh_p, fresh_i))
      ) ORDER BY project_id FOR UPDATE;
    END IF;
    WITH cand AS (
      SELECT * FROM jsonb_to_recordset(p_traces)
        AS t(n integer, project_id text, request_id text, created_at bigint, data text, bytes bigint)
      WHERE whole OR (t.project_id, t.request_id) IN (SELECT * FROM unnest(fresh_p, fresh_i))
    ), ahead AS (
      -- A trace is kept while its project's bytes before it (stored, then this batch's earlier
      -- traces, all kept until the budget is reached) are under the budget.
      SELECT c.*, coalesce(sum(c.bytes) OVER (PARTITION BY c.project_id ORDER BY c.n
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before FROM cand c
    ), kept AS (
      SELECT a.* FROM ahead a LEFT JOIN trace_usage u ON u.project_id = a.project_id
      WHERE p_budget <= 0 OR coalesce(u.bytes, 0) + a.before < p_budget
    ), put AS (
      INSERT INTO traces (project_id, request_id, created_at, data)
      SELECT project_id, request_id, created_at, data FROM kept ON CONFLICT DO NOTHING
    )
    INSERT INTO trace_usage (project_id, bytes)
    SELECT project_id, sum(bytes) FROM kept GROUP BY project_id ORDER BY project_id
    ON CONFLICT (project_id) DO UPDATE SET bytes = trace_usage.bytes + excluded.bytes;
  END IF;

  -- Some rows were there already: the minutes' counts are the inserted rows' deltas summed (the
  -- {key: count} objects key by key) instead of p_minutes.
  IF NOT whole THEN
    WITH d AS (
      SELECT * FROM jsonb_to_recordset(p_deltas) AS d(project_id text, request_id text, start_ms bigint, requests bigint,
        failed bigint, caller_failed bigint, fallbacks bigint, cache_hits bigint, input_tokens bigint, output_tokens bigint,
        cost bigint, saved bigint, errors jsonb, latency jsonb, ttft jsonb)
      WHERE (d.project_id, d.request_id) IN (SELECT * FROM unnest(fresh_p, fresh_i))
    ), counts AS (
      SELECT f.start_ms, f.project_id,
        jsonb_object_agg(f.k, f.n) FILTER (WHERE f.m = 1) AS errors,
        jsonb_object_agg(f.k, f.n) FILTER (WHERE f.m = 2) AS latency,
        jsonb_object_agg(f.k, f.n) FILTER (WHERE f.m = 3) AS ttft
      FROM (
        SELECT d.start_ms, d.project_id, x.m, e.key AS k, sum(e.value::bigint) AS n
        FROM d CROSS JOIN LATERAL (VALUES (1, d.errors), (2, d.latency), (3, d.ttft)) AS x(m, o)
        CROSS JOIN LATERAL jsonb_each_text(x.o) AS e
        GROUP BY d.start_ms, d.project_id, x.m, e.key
      ) f GROUP BY f.start_ms, f.project_id
    ), sums AS (
      SELECT d.start_ms, d.project_id, sum(d.requests) AS requests, sum(d.failed) AS failed,
        sum(d.caller_failed) AS caller_failed, sum(d.fallbacks) AS fallbacks, sum(d.cache_hits) AS cache_hits,
        sum(d.input_tokens) AS input_tokens, sum(d.output_tokens) AS output_tokens, sum(d.cost) AS cost, sum(d.saved) AS saved
      FROM d GROUP BY d.start_ms, d.project_id
    )
    SELECT coalesce(jsonb_agg(x), '[]') INTO minutes FROM (
      SELECT s.*, coalesce(c.errors, '{}') AS errors, coalesce(c.latency, '{}') AS latency, coalesce(c.ttft, '{}') AS ttft
      FROM sums s LEFT JOIN counts c ON c.start_ms = s.start_ms AND c.project_id = s.project_id
    ) x;
  END IF;

  -- Added sorted by key, so concurrent batches lock the same minute rows in one order; the
  -- {key: count} objects are summed key by key, as gw_add_counts does.
  INSERT INTO metrics_rollups (bucket_ms, start_ms, project_id, requests, failed, caller_failed, fallbacks, cache_hits,
    input_tokens, output_tokens, cost, saved, errors, latency, ttft)
  SELECT 60000, m.start_ms, m.project_id, m.requests, m.failed, m.caller_failed, m.fallbacks, m.cache_hits,
    m.input_tokens, m.output_tokens, m.cost, m.saved, m.errors, m.latency, m.ttft
  FROM jsonb_to_recordset(minutes) AS m(start_ms bigint, project_id text, requests bigint, failed bigint,
    caller_failed bigint, fallbacks bigint, cache_hits bigint, input_tokens bigint, output_tokens bigint, cost bigint,
    saved bigint, errors jsonb, latency jsonb, ttft jsonb)
  ORDER BY m.start_ms, m.project_id
  ON CONFLICT (bucket_ms, start_ms, project_id) DO UPDATE SET
    requests = metrics_rollups.requests + excluded.requests, failed = metrics_rollups.failed + excluded.failed,
    caller_failed = metrics_rollups.caller_failed + excluded.caller_failed,
    fallbacks = metrics_rollups.fallbacks + excluded.fallbacks, cache_hits = metrics_rollups.cache_hits + excluded.cache_hits,
    input_tokens = metrics_rollups.input_tokens + excluded.input_tokens,
    output_tokens = metrics_rollups.output_tokens + excluded.output_tokens,
    cost = metrics_rollups.cost + excluded.cost, saved = metrics_rollups.saved + excluded.saved,
    errors = CASE WHEN excluded.errors = '{}' THEN metrics_rollups.errors WHEN metrics_rollups.errors = '{}' THEN excluded.errors
      ELSE (SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb) FROM (SELECT k, sum(v::bigint) AS n FROM (
        SELECT key AS k, value AS v FROM jsonb_each_text(metrics_rollups.errors)
        UNION ALL SELECT key, value FROM jsonb_each_text(excluded.errors)) s GROUP BY k) t) END,
    latency = CASE WHEN excluded.latency = '{}' THEN metrics_rollups.latency WHEN metrics_rollups.latency = '{}' THEN excluded.latency
      ELSE (SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb) FROM (SELECT k, sum(v::bigint) AS n FROM (
        SELECT key AS k, value AS v FROM jsonb_each_text(metrics_rollups.latency)
        UNION ALL SELECT key, value FROM jsonb_each_text(excluded.latency)) s GROUP BY k) t) END,
    ttft = CASE WHEN excluded.ttft = '{}' THEN metrics_rollups.ttft WHEN metrics_rollups.ttft = '{}' THEN excluded.ttft
      ELSE (SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb) FROM (SELECT k, sum(v::bigint) AS n FROM (
        SELECT key AS k, value AS v FROM jsonb_each_text(metrics_rollups.ttft)
        UNION ALL SELECT key, value FROM jsonb_each_text(excluded.ttft)) s GROUP BY k) t) END;
  RETURN array_length(fresh_i, 1);
END
$$;
