-- The leader's periodic jobs (docs/scale-out.md "Leader"): when each last ran and how often, written
-- in the job's own transaction on the lock holder's session, so a new leader keeps the cadence.
CREATE TABLE leader_jobs (
  name        TEXT PRIMARY KEY,
  last_run_at BIGINT NOT NULL,
  runs        BIGINT NOT NULL DEFAULT 0,
  holder      TEXT NOT NULL
);
