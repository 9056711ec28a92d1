-- Ratings across instances (docs/scale-out.md): quality sums per (project, pool, model, task) kept by a
-- trigger on feedback (rows `gw migrate-to-postgres` copies count too), each change numbered and timed
-- so instances re-read only what changed; a rating is one call that says which rating it replaced.
CREATE SEQUENCE feedback_sums_seq;

CREATE TABLE feedback_sums (
  project_id TEXT NOT NULL,
  test       BOOLEAN NOT NULL,
  model_id   TEXT NOT NULL,
  task       TEXT NOT NULL,
  rating_sum BIGINT NOT NULL DEFAULT 0,
  count      BIGINT NOT NULL DEFAULT 0,
  -- Rises with every change of this row, in commit order for the row (its lock orders them).
  seq        BIGINT NOT NULL,
  -- Epoch ms when changed: readers ask for rows changed since their last read, minus an overlap.
  changed_at BIGINT NOT NULL,
  PRIMARY KEY (project_id, test, model_id, task)
);
CREATE INDEX feedback_sums_changed ON feedback_sums(changed_at, seq);

CREATE FUNCTION gw_feedback_sums_add(p_project TEXT, p_test BOOLEAN, p_model TEXT, p_task TEXT, p_sum BIGINT, p_count BIGINT)
RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO feedback_sums AS s (project_id, test, model_id, task, rating_sum, count, seq, changed_at)
    VALUES (p_project, p_test, p_model, p_task, p_sum, p_count, nextval('feedback_sums_seq'),
      (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    ON CONFLICT (project_id, test, model_id, task) DO UPDATE SET rating_sum = s.rating_sum + excluded.rating_sum,
      count = s.count + excluded.count, seq = nextval('feedback_sums_seq'),
      changed_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
END $$;

-- Only counted ratings of a known model and task feed the sums (as SQLite's aggregate query).
CREATE FUNCTION gw_feedback_sums_trigger() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.counted AND OLD.model_id IS NOT NULL AND OLD.task IS NOT NULL THEN
    PERFORM gw_feedback_sums_add(OLD.project_id, OLD.test, OLD.model_id, OLD.task, -OLD.rating, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.counted AND NEW.model_id IS NOT NULL AND NEW.task IS NOT NULL THEN
    PERFORM gw_feedback_sums_add(NEW.project_id, NEW.test, NEW.model_id, NEW.task, NEW.rating, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER feedback_sums_keep AFTER INSERT OR UPDATE OR DELETE ON feedback
  FOR EACH ROW EXECUTE FUNCTION gw_feedback_sums_trigger();

INSERT INTO feedback_sums (project_id, test, model_id, task, rating_sum, count, seq, changed_at)
  SELECT project_id, test, model_id, task, sum(rating), count(*), nextval('feedback_sums_seq'),
      (extract(epoch FROM clock_timestamp()) * 1000)::bigint
  FROM feedback WHERE counted AND model_id IS NOT NULL AND task IS NOT NULL
  GROUP BY project_id, test, model_id, task;

-- Stores a rating, the last one winning; returns the rating it replaced (NULL for a first one) and
-- the sums of its (project, pool, model, task) after it, NULL when it is not counted. Each statement
-- sees what committed before it, so two first ratings at once: one inserts, the other replaces it.
CREATE FUNCTION gw_rate_feedback(p_project TEXT, p_request TEXT, p_model TEXT, p_task TEXT, p_test BOOLEAN,
    p_counted BOOLEAN, p_rating INTEGER, p_now BIGINT)
RETURNS TABLE (previous INTEGER, rating_sum BIGINT, count BIGINT, seq BIGINT) LANGUAGE plpgsql AS $$
DECLARE
  v_prev INTEGER;
  r RECORD;
BEGIN
  INSERT INTO feedback (project_id, request_id, model_id, task, test, counted, rating, created_at, updated_at)
    VALUES (p_project, p_request, p_model, p_task, p_test, p_counted, p_rating, p_now, p_now)
    ON CONFLICT (project_id, request_id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT f.rating INTO v_prev FROM feedback f WHERE f.project_id = p_project AND f.request_id = p_request FOR UPDATE;
    UPDATE feedback f SET rating = p_rating, updated_at = p_now WHERE f.project_id = p_project AND f.request_id = p_request
      RETURNING f.model_id, f.task, f.test, f.counted INTO r;
  ELSE
    SELECT p_model AS model_id, p_task AS task, p_test AS test, p_counted AS counted INTO r;
  END IF;
  previous := v_prev;
  IF r.counted AND r.model_id IS NOT NULL AND r.task IS NOT NULL THEN
    SELECT s.rating_sum, s.count, s.seq INTO rating_sum, count, seq FROM feedback_sums s
      WHERE s.project_id = p_project AND s.test = r.test AND s.model_id = r.model_id AND s.task = r.task;
  END IF;
  RETURN NEXT;
END $$;
