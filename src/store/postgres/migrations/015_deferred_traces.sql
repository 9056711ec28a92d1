-- PostgreSQL schema, part 15 (docs/scale-out.md "Request log on the request path"): traces are written
-- after their rows, in their own batches (src/store/postgres/trace-writer.ts), so an answer waits for
-- its row and charge only. gw_write_log is called with no traces from here on.

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
