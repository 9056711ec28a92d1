-- PostgreSQL schema, part 8 (docs/scale-out.md "Request log and metrics"): a request-log batch and the
-- charges its rows carry in ONE call and one transaction, so money and its log row commit together
-- and an answer waits for one round trip after the upstream instead of two (src/store/postgres/request-log.ts).

-- The first five arguments are gw_write_log's; p_settles: [{project_id, request_id, charge, allowance,
-- cache_saved, model, input_tokens, output_tokens, cost, byok, periods, now}], each settled as gw_settle
-- does (unique per request id: a retried batch charges nothing twice). The log is written first and the
-- settles last, in (project, request) order: every batch takes trace usage, then rollups, then accounts,
-- in one order, and holds account rows only for the end of the call. Returns the settles whose amount
-- differs from the ask ([{request_id, charge, charged}], charged null when the request was settled or
-- released before), else '[]'. Any error (GW001 from gw_write_log included) rolls the whole call back.
CREATE FUNCTION gw_write_log_settled(p_rows JSONB, p_traces JSONB, p_minutes JSONB, p_deltas JSONB, p_budget BIGINT,
    p_settles JSONB) RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
  s RECORD;
  v_charged BIGINT;
  v_odd JSONB := '[]';
BEGIN
  IF jsonb_array_length(p_rows) > 0 THEN
    PERFORM gw_write_log(p_rows, p_traces, p_minutes, p_deltas, p_budget);
  END IF;
  FOR s IN SELECT * FROM jsonb_to_recordset(p_settles) AS x(project_id text, request_id text, charge bigint,
      allowance bigint, cache_saved bigint, model text, input_tokens bigint, output_tokens bigint, cost bigint,
      byok boolean, periods jsonb, now bigint)
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

-- gw_apply_counters (006) with the same arguments, order and refusals, in fewer statements: each
-- counter is UPDATEd first and only a missing row is inserted (once a period's row exists, the common
-- case, one statement per counter instead of two).
CREATE OR REPLACE FUNCTION gw_apply_counters(p_project TEXT, p_changes JSONB) RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
  c RECORD;
  r RECORD;
BEGIN
  FOR c IN SELECT * FROM ROWS FROM (jsonb_to_recordset(p_changes) AS (period text, key text, reserved bigint, inflight bigint,
      spent bigint, requests bigint, budget bigint, plan bigint)) WITH ORDINALITY AS t(period, key, reserved, inflight, spent,
      requests, budget, plan, i) ORDER BY t.i LOOP
    FOR attempt IN 1..2 LOOP
      UPDATE spend_counters SET reserved = reserved + c.reserved, inflight = inflight + c.inflight,
          spent = spent + c.spent, requests = requests + c.requests
        WHERE project_id = p_project AND period = c.period AND period_key = c.key
          AND (c.budget IS NULL OR spent + reserved + c.reserved <= c.budget)
          AND (c.plan IS NULL OR requests + inflight < c.plan);
      EXIT WHEN FOUND;
      IF attempt = 1 THEN
        -- Perhaps the row is missing: made here (or by another transaction meanwhile), then tried again.
        INSERT INTO spend_counters (project_id, period, period_key) VALUES (p_project, c.period, c.key) ON CONFLICT DO NOTHING;
        CONTINUE;
      END IF;
      -- The row exists and its limits refuse.
      SELECT s.spent, s.reserved, s.requests, s.inflight INTO r FROM spend_counters s
        WHERE s.project_id = p_project AND s.period = c.period AND s.period_key = c.key;
      IF c.plan IS NOT NULL AND coalesce(r.requests, 0) + coalesce(r.inflight, 0) >= c.plan THEN
        RETURN jsonb_build_object('ok', false, 'code', 'plan_limit');
      END IF;
      RETURN jsonb_build_object('ok', false, 'code', 'budget_exceeded', 'period', c.period,
        'spent', coalesce(r.spent, 0), 'reserved', coalesce(r.reserved, 0));
    END LOOP;
  END LOOP;
  RETURN NULL;
END $$;

-- gw_settle (006) with the same arguments, answers and locks, in fewer steps: no exception block
-- (a subtransaction on every call; a replay is found by the closing row's unique index before anything
-- else changed), and its counters changed in name order straight from the hold and the periods instead
-- of through a JSON list. Nothing moved is not written: a cache answer without a hold (0 charged, 0 held)
-- changes no account or counter row (a missing row reads as zeros everywhere), only its ledger row.
CREATE OR REPLACE FUNCTION gw_settle(p_project TEXT, p_request TEXT, p_charge BIGINT, p_allowance BIGINT, p_cache_saved BIGINT,
    p_model TEXT, p_input BIGINT, p_output BIGINT, p_cost BIGINT, p_byok BOOLEAN, p_periods JSONB, p_now BIGINT)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  v_hold RECORD;
  v_held BIGINT;
  v_cache BOOLEAN := p_cache_saved IS NOT NULL;
  v_charge BIGINT;
  v_balance BIGINT;
  v_reserved BIGINT;
  c RECORD;
BEGIN
  -- Deleting the open hold locks it: a concurrent settle of the same request waits, then finds none.
  DELETE FROM ledger_open_holds h WHERE h.project_id = p_project AND h.request_id = p_request
    RETURNING h.amount, h.budget_keys, h.slot_key, h.created_at INTO v_hold;
  v_held := coalesce(v_hold.amount, 0);
  v_charge := CASE WHEN v_cache THEN 0 ELSE p_charge END;
  IF p_allowance IS NOT NULL AND v_charge > 0 THEN
    SELECT a.balance, a.reserved INTO v_balance, v_reserved FROM accounts a WHERE a.project_id = p_project FOR UPDATE;
    v_charge := least(v_charge, greatest(0, coalesce(v_balance, 0) + p_allowance - coalesce(v_reserved, 0) + v_held));
  END IF;
  INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, created_at)
    VALUES (p_project, CASE WHEN v_cache THEN 'cache' ELSE 'charge' END, v_charge, p_request, p_model, p_input, p_output,
      p_cost, coalesce(p_cache_saved, 0), p_byok, p_now) ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    -- Settled or released before. A hold open beside a closing row cannot happen (both change in one
    -- transaction); were it so, it is put back as it was, as 006's rollback did.
    IF v_hold.amount IS NOT NULL THEN
      INSERT INTO ledger_open_holds (project_id, request_id, amount, budget_keys, slot_key, created_at)
        VALUES (p_project, p_request, v_hold.amount, v_hold.budget_keys, v_hold.slot_key, v_hold.created_at);
    END IF;
    RETURN NULL;
  END IF;
  IF v_charge <> 0 OR v_held <> 0 THEN
    INSERT INTO accounts AS a (project_id, balance, reserved) VALUES (p_project, -v_charge, 0)
      ON CONFLICT (project_id) DO UPDATE SET balance = a.balance - v_charge, reserved = a.reserved - v_held;
  END IF;
  -- The hold's budget rows and plan place given back, the charge added to the periods: per counter, in name order.
  FOR c IN
    SELECT period, key, sum(reserved) AS reserved, sum(inflight) AS inflight, sum(spent) AS spent, sum(requests) AS requests
    FROM (
      SELECT split_part(n, '/', 1) AS period, split_part(n, '/', 2) AS key, -v_held AS reserved,
          0::bigint AS inflight, 0::bigint AS spent, 0::bigint AS requests
        FROM unnest(coalesce(v_hold.budget_keys, '{}'::text[])) AS n
        WHERE split_part(n, '/', 1) IN ('daily', 'monthly') AND split_part(n, '/', 2) <> ''
      UNION ALL SELECT 'monthly', v_hold.slot_key, 0, -1, 0, 0 WHERE v_hold.slot_key IS NOT NULL
      UNION ALL SELECT e->>'period', e->>'key', 0, 0, v_charge, CASE WHEN v_cache THEN 0 ELSE 1 END
        FROM jsonb_array_elements(coalesce(p_periods, '[]')) AS e
    ) AS each_change
    GROUP BY period, key ORDER BY (period || '/' || key) COLLATE "C"
  LOOP
    CONTINUE WHEN c.reserved = 0 AND c.inflight = 0 AND c.spent = 0 AND c.requests = 0;
    UPDATE spend_counters SET reserved = reserved + c.reserved, inflight = inflight + c.inflight,
        spent = spent + c.spent, requests = requests + c.requests
      WHERE project_id = p_project AND period = c.period AND period_key = c.key;
    CONTINUE WHEN FOUND;
    INSERT INTO spend_counters (project_id, period, period_key) VALUES (p_project, c.period, c.key) ON CONFLICT DO NOTHING;
    UPDATE spend_counters SET reserved = reserved + c.reserved, inflight = inflight + c.inflight,
        spent = spent + c.spent, requests = requests + c.requests
      WHERE project_id = p_project AND period = c.period AND period_key = c.key;
  END LOOP;
  RETURN v_charge;
END $$;

-- gw_write_log (007) with the same arguments, answers and locks; only the {key: count} merges of a
-- minute already stored change: the stored object is kept and just the batch's keys (a request adds one
-- latency bucket) are summed into it, instead of exploding both objects into rows and aggregating them
-- again. The same JSONB results; measured (track_functions, 1-row batches with a trace) 491-523 -> 428-456 us.
CREATE OR REPLACE FUNCTION gw_write_log(p_rows JSONB, p_traces JSONB, p_minutes JSONB, p_deltas JSONB, p_budget BIGINT)
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
      ELSE metrics_rollups.errors || (SELECT jsonb_object_agg(e.key, coalesce((metrics_rollups.errors->>e.key)::bigint, 0) + e.value::bigint)
        FROM jsonb_each_text(excluded.errors) e) END,
    latency = CASE WHEN excluded.latency = '{}' THEN metrics_rollups.latency WHEN metrics_rollups.latency = '{}' THEN excluded.latency
      ELSE metrics_rollups.latency || (SELECT jsonb_object_agg(e.key, coalesce((metrics_rollups.latency->>e.key)::bigint, 0) + e.value::bigint)
        FROM jsonb_each_text(excluded.latency) e) END,
    ttft = CASE WHEN excluded.ttft = '{}' THEN metrics_rollups.ttft WHEN metrics_rollups.ttft = '{}' THEN excluded.ttft
      ELSE metrics_rollups.ttft || (SELECT jsonb_object_agg(e.key, coalesce((metrics_rollups.ttft->>e.key)::bigint, 0) + e.value::bigint)
        FROM jsonb_each_text(excluded.ttft) e) END;
  RETURN array_length(fresh_i, 1);
END
$$;
