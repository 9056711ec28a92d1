-- Ratings of requests (docs/decisions.md "Feedback and retention"): one per (project, request), the
-- latest wins; model_id and task are copied from the log row so quality sums rebuild without it.
-- `counted`: the rating feeds those sums; `test`: test-mode ratings, in a pool of their own.
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
