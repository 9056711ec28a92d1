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
