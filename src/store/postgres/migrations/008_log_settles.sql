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
