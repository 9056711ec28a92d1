-- PostgreSQL schema, part 15 (docs/scale-out.md "Request log on the request path"): traces are written
-- after their rows, in their own batches (src/store/postgres/trace-writer.ts), so an answer waits for
-- its row and charge only. gw_write_log is called with no traces from here on. And a cache answer's
-- ledger row is written without gw_settle when it held nothing (below).

-- p_traces: [{n, project_id, request_id, created_at, data, bytes}]; p_budget: a project's trace bytes
-- (0: none). As gw_write_log's trace step (007): over the budget a trace is not kept; the usage rows are
-- locked in project order, so concurrent batches check it one after the other and never deadlock. A
-- trace stored already (a retried batch) or twice in the batch is stored and counted once. Returns how
-- many traces were stored.
CREATE FUNCTION gw_write_traces(p_traces JSONB, p_budget BIGINT) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  stored INTEGER;
BEGIN
  IF p_budget > 0 THEN
    PERFORM 1 FROM trace_usage WHERE project_id IN (
      SELECT t.project_id FROM jsonb_to_recordset(p_traces) AS t(project_id text)
    ) ORDER BY project_id FOR UPDATE;
  END IF;
  WITH cand AS (
    -- Each request once (a batch may hold a retried row's trace twice), and none stored already, so
    -- the bytes before a trace count only traces this call stores.
    SELECT DISTINCT ON (t.project_id, t.request_id) t.* FROM jsonb_to_recordset(p_traces)
      AS t(n integer, project_id text, request_id text, created_at bigint, data text, bytes bigint)
    WHERE NOT EXISTS (SELECT 1 FROM traces x WHERE x.project_id = t.project_id AND x.request_id = t.request_id
      AND x.created_at = t.created_at)
    ORDER BY t.project_id, t.request_id, t.n
  ), ahead AS (
    -- A trace is kept while its project's bytes before it (stored, then this batch's earlier traces)
    -- are under the budget.
    SELECT c.*, coalesce(sum(c.bytes) OVER (PARTITION BY c.project_id ORDER BY c.n
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before FROM cand c
  ), kept AS (
    SELECT a.* FROM ahead a LEFT JOIN trace_usage u ON u.project_id = a.project_id
    WHERE p_budget <= 0 OR coalesce(u.bytes, 0) + a.before < p_budget
  ), put AS (
    INSERT INTO traces (project_id, request_id, created_at, data)
    SELECT project_id, request_id, created_at, data FROM kept ON CONFLICT DO NOTHING
    RETURNING project_id, request_id
  ), used AS (
    INSERT INTO trace_usage (project_id, bytes)
    SELECT k.project_id, sum(k.bytes) FROM kept k JOIN put p ON p.project_id = k.project_id AND p.request_id = k.request_id
    GROUP BY k.project_id ORDER BY k.project_id
    ON CONFLICT (project_id) DO UPDATE SET bytes = trace_usage.bytes + excluded.bytes
  )
  SELECT count(*) INTO stored FROM put;
  RETURN stored;
END $$;

-- gw_write_log_settled (008) with the same arguments, answers and locks, but a cache answer that held
-- nothing (a settle with cache_saved set and held false, as billing/shared-holds.ts marks it) is only
-- its ledger row: gw_settle would find no hold and change no account or counter (0 charged, 0 held).
-- Those rows go in one statement, before the other settles; one stored before (a retry) is reported
-- as gw_settle reports it (charged null). A settle without `held` is settled by gw_settle as before.
CREATE OR REPLACE FUNCTION gw_write_log_settled(p_rows JSONB, p_traces JSONB, p_minutes JSONB, p_deltas JSONB, p_budget BIGINT,
    p_settles JSONB) RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
  s RECORD;
  v_charged BIGINT;
  v_odd JSONB := '[]';
BEGIN
  IF jsonb_array_length(p_rows) > 0 THEN
    PERFORM gw_write_log(p_rows, p_traces, p_minutes, p_deltas, p_budget);
  END IF;
  WITH plain AS (
    SELECT * FROM jsonb_to_recordset(p_settles) AS x(project_id text, request_id text, cache_saved bigint, model text,
      input_tokens bigint, output_tokens bigint, cost bigint, byok boolean, now bigint, held boolean)
    WHERE x.cache_saved IS NOT NULL AND x.held IS FALSE
  ), ins AS (
    INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, created_at)
    SELECT project_id, 'cache', 0, request_id, model, input_tokens, output_tokens, cost, cache_saved, byok, now
    FROM plain ORDER BY project_id COLLATE "C", request_id COLLATE "C"
    ON CONFLICT DO NOTHING RETURNING project_id, request_id
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object('request_id', p.request_id, 'charge', 0, 'charged', NULL)), '[]') INTO v_odd
  FROM plain p WHERE NOT EXISTS (SELECT 1 FROM ins i WHERE i.project_id = p.project_id AND i.request_id = p.request_id);
  FOR s IN SELECT * FROM jsonb_to_recordset(p_settles) AS x(project_id text, request_id text, charge bigint,
      allowance bigint, cache_saved bigint, model text, input_tokens bigint, output_tokens bigint, cost bigint,
      byok boolean, periods jsonb, now bigint, held boolean)
    WHERE NOT (x.cache_saved IS NOT NULL AND x.held IS FALSE)
    ORDER BY x.project_id COLLATE "C", x.request_id COLLATE "C"
  LOOP
    v_charged := gw_settle(s.project_id, s.request_id, s.charge, s.allowance, s.cache_saved, s.model, s.input_tokens,
      s.output_tokens, s.cost, s.byok, s.periods, s.now);
    IF v_charged IS DISTINCT FROM s.charge THEN
      v_odd := v_odd || jsonb_build_array(jsonb_build_object('request_id', s.request_id, 'charge', s.charge, 'charged', v_charged));
    END IF;
  END LOOP;
  RETURN v_odd;
END $$;
