-- Ratings of requests (docs/decisions.md "Feedback and retention"). One row per
-- (project, request): a second rating replaces the first. model_id and task are copied from the
-- request's log row when rated, so the router's quality sums can be rebuilt at start without
-- reading the log. `counted` says whether the rating feeds those sums (a model answered it now
-- or from the exact cache); `test` keeps test-mode ratings in their own pool.
CREATE TABLE feedback (
  project_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  model_id   TEXT,
  task       TEXT,
  test       INTEGER NOT NULL,
  counted    INTEGER NOT NULL,
  rating     INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, request_id)
) WITHOUT ROWID;
-- The start-up load sums counted ratings per (pool, model, task).
CREATE INDEX feedback_quality ON feedback(counted, test, model_id, task);
