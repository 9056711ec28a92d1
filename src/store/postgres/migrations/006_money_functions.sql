-- Each step of a request's money as ONE statement (docs/scale-out.md "PostgreSQL"): the statements
-- src/store/postgres/money.ts ran in a client transaction, now in a function; a single SELECT is its
-- own transaction. Refusals and replays roll back through an exception block, as the client's throw did.

-- Applies counter changes ([{period, key, reserved, inflight, spent, requests, budget, plan}], in name
-- order, after the account row: never a deadlock); the first one its limits refuse is returned, else NULL.
CREATE FUNCTION gw_apply_counters(p_project TEXT, p_changes JSONB) RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
  c JSONB;
  v_period TEXT;
  v_key TEXT;
  v_reserved BIGINT;
  v_budget BIGINT;
  v_plan BIGINT;
  r RECORD;
BEGIN
  FOR c IN SELECT e FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS t(e, i) ORDER BY i LOOP
    v_period := c->>'period';
    v_key := c->>'key';
    v_reserved := (c->>'reserved')::bigint;
    v_budget := (c->>'budget')::bigint;
    v_plan := (c->>'plan')::bigint;
    INSERT INTO spend_counters (project_id, period, period_key) VALUES (p_project, v_period, v_key) ON CONFLICT DO NOTHING;
    UPDATE spend_counters SET reserved = reserved + v_reserved, inflight = inflight + (c->>'inflight')::bigint,
        spent = spent + (c->>'spent')::bigint, requests = requests + (c->>'requests')::bigint
      WHERE project_id = p_project AND period = v_period AND period_key = v_key
        AND (v_budget IS NULL OR spent + reserved + v_reserved <= v_budget)
        AND (v_plan IS NULL OR requests + inflight < v_plan);
    CONTINUE WHEN FOUND;
    SELECT s.spent, s.reserved, s.requests, s.inflight INTO r FROM spend_counters s
      WHERE s.project_id = p_project AND s.period = v_period AND s.period_key = v_key;
    IF v_plan IS NOT NULL AND coalesce(r.requests, 0) + coalesce(r.inflight, 0) >= v_plan THEN
      RETURN jsonb_build_object('ok', false, 'code', 'plan_limit');
    END IF;
    RETURN jsonb_build_object('ok', false, 'code', 'budget_exceeded', 'period', v_period,
      'spent', coalesce(r.spent, 0), 'reserved', coalesce(r.reserved, 0));
  END LOOP;
  RETURN NULL;
END $$;

-- What closing a hold gives back to its counters (its budget_keys 'daily/2026-11-26' and the plan's
-- month), and what the charge adds to the periods given; merged per counter, in name order.
CREATE FUNCTION gw_close_changes(p_amount BIGINT, p_budget_keys TEXT[], p_slot_key TEXT, p_charge BIGINT,
    p_counted BOOLEAN, p_periods JSONB) RETURNS JSONB LANGUAGE plpgsql AS $$
BEGIN
  -- PL/pgSQL, not SQL: its plan is kept for the session instead of made again on every call.
  RETURN (SELECT coalesce(jsonb_agg(jsonb_build_object('period', period, 'key', key, 'reserved', reserved, 'inflight', inflight,
      'spent', spent, 'requests', requests, 'budget', NULL, 'plan', NULL) ORDER BY (period || '/' || key) COLLATE "C"), '[]')
  FROM (
    SELECT period, key, sum(reserved) AS reserved, sum(inflight) AS inflight, sum(spent) AS spent, sum(requests) AS requests
    FROM (
      SELECT split_part(n, '/', 1) AS period, split_part(n, '/', 2) AS key, -coalesce(p_amount, 0) AS reserved,
          0::bigint AS inflight, 0::bigint AS spent, 0::bigint AS requests
        FROM unnest(coalesce(p_budget_keys, '{}')) AS n
        WHERE split_part(n, '/', 1) IN ('daily', 'monthly') AND split_part(n, '/', 2) <> ''
      UNION ALL SELECT 'monthly', p_slot_key, 0, -1, 0, 0 WHERE p_slot_key IS NOT NULL
      UNION ALL SELECT e->>'period', e->>'key', 0, 0, p_charge, CASE WHEN p_counted THEN 1 ELSE 0 END
        FROM jsonb_array_elements(coalesce(p_periods, '[]')) AS e
    ) AS each_change
    GROUP BY period, key
  ) AS merged);
END $$;

-- A reservation: {"ok": true, "replayed": bool} or the refusal with its figures.
CREATE FUNCTION gw_reserve(p_project TEXT, p_request TEXT, p_amount BIGINT, p_allowance BIGINT, p_changes JSONB,
    p_budget_keys TEXT[], p_slot_key TEXT, p_now BIGINT) RETURNS JSONB LANGUAGE plpgsql AS $$
DECLARE
  v_refusal JSONB;
  v_balance BIGINT;
  v_reserved BIGINT;
BEGIN
  BEGIN
    -- The hold's row first: a concurrent replay waits on its unique index, then finds it taken.
    INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, created_at)
      VALUES (p_project, 'hold', p_amount, p_request, NULL, 0, 0, 0, 0, false, p_now) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true);
    END IF;
    -- A project with nothing credited yet has no row: one may still reserve against a credit limit.
    IF p_allowance IS DISTINCT FROM 0 OR p_amount = 0 THEN
      INSERT INTO accounts (project_id) VALUES (p_project) ON CONFLICT DO NOTHING;
    END IF;
    -- The one conditional UPDATE: concurrent reservations queue on the row and each sees the last.
    UPDATE accounts SET reserved = reserved + p_amount
      WHERE project_id = p_project AND (p_allowance IS NULL OR balance + p_allowance - reserved >= p_amount);
    IF NOT FOUND THEN
      SELECT a.balance, a.reserved INTO v_balance, v_reserved FROM accounts a WHERE a.project_id = p_project;
      v_refusal := jsonb_build_object('ok', false, 'code', 'insufficient_credits',
        'balance', coalesce(v_balance, 0), 'reserved', coalesce(v_reserved, 0));
      RAISE SQLSTATE 'GWREF';
    END IF;
    v_refusal := gw_apply_counters(p_project, p_changes);
    IF v_refusal IS NOT NULL THEN
      RAISE SQLSTATE 'GWREF';
    END IF;
    INSERT INTO ledger_open_holds (project_id, request_id, amount, budget_keys, slot_key, created_at)
      VALUES (p_project, p_request, p_amount, coalesce(p_budget_keys, '{}'), p_slot_key, p_now);
    RETURN jsonb_build_object('ok', true, 'replayed', false);
  EXCEPTION WHEN SQLSTATE 'GWREF' THEN
    -- Everything this call wrote is rolled back: the same request id may ask again.
    RETURN v_refusal;
  END;
END $$;

-- The charge (cut to the hold plus the unreserved credit) and its ledger row replace the hold;
-- returns the amount charged, NULL when the request id was settled or released before.
CREATE FUNCTION gw_settle(p_project TEXT, p_request TEXT, p_charge BIGINT, p_allowance BIGINT, p_cache_saved BIGINT,
    p_model TEXT, p_input BIGINT, p_output BIGINT, p_cost BIGINT, p_byok BOOLEAN, p_periods JSONB, p_now BIGINT)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  v_hold RECORD;
  v_held BIGINT;
  v_cache BOOLEAN := p_cache_saved IS NOT NULL;
  v_charge BIGINT;
  v_balance BIGINT;
  v_reserved BIGINT;
BEGIN
  BEGIN
    -- Deleting the open hold locks it: a concurrent settle of the same request waits, then finds none.
    DELETE FROM ledger_open_holds h WHERE h.project_id = p_project AND h.request_id = p_request
      RETURNING h.amount, h.budget_keys, h.slot_key INTO v_hold;
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
      RAISE SQLSTATE 'GWREP';
    END IF;
    INSERT INTO accounts AS a (project_id, balance, reserved) VALUES (p_project, -v_charge, 0)
      ON CONFLICT (project_id) DO UPDATE SET balance = a.balance - v_charge, reserved = a.reserved - v_held;
    PERFORM gw_apply_counters(p_project,
      gw_close_changes(v_hold.amount, v_hold.budget_keys, v_hold.slot_key, v_charge, NOT v_cache, p_periods));
    RETURN v_charge;
  EXCEPTION WHEN SQLSTATE 'GWREP' THEN
    RETURN NULL;
  END;
END $$;

-- Gives the whole hold back; false when nothing was open (a replay, or never held).
CREATE FUNCTION gw_release(p_project TEXT, p_request TEXT, p_now BIGINT) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
  v_hold RECORD;
BEGIN
  BEGIN
    DELETE FROM ledger_open_holds h WHERE h.project_id = p_project AND h.request_id = p_request
      RETURNING h.amount, h.budget_keys, h.slot_key INTO v_hold;
    IF NOT FOUND THEN
      RETURN false;
    END IF;
    INSERT INTO ledger (project_id, kind, amount, request_id, model, input_tokens, output_tokens, cost, saved, byok, created_at)
      VALUES (p_project, 'release', v_hold.amount, p_request, NULL, 0, 0, 0, 0, false, p_now) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      RAISE SQLSTATE 'GWREP';
    END IF;
    UPDATE accounts a SET reserved = a.reserved - v_hold.amount WHERE a.project_id = p_project;
    PERFORM gw_apply_counters(p_project, gw_close_changes(v_hold.amount, v_hold.budget_keys, v_hold.slot_key, 0, false, NULL));
    RETURN true;
  EXCEPTION WHEN SQLSTATE 'GWREP' THEN
    RETURN false;
  END;
END $$;

-- Adds credit with its ledger row; returns the balance after it.
CREATE FUNCTION gw_credit(p_project TEXT, p_amount BIGINT, p_note TEXT, p_now BIGINT) RETURNS BIGINT LANGUAGE sql AS $$
  INSERT INTO ledger (project_id, kind, amount, note, created_at) VALUES (p_project, 'credit', p_amount, p_note, p_now);
  INSERT INTO accounts AS a (project_id, balance) VALUES (p_project, p_amount)
    ON CONFLICT (project_id) DO UPDATE SET balance = a.balance + excluded.balance RETURNING balance;
$$;
