-- PostgreSQL schema, part 10 (docs/scale-out.md "Alerts, incidents and the status page"): the
-- leader's alert evaluation and status rollups. The status rollup job reads the last minutes of
-- every project's requests by time: a BRIN index (rows arrive in time order), which costs a log
-- insert next to nothing; built-in provider rules keep their state across leaders.
CREATE INDEX requests_created ON requests USING brin (created_at) WITH (autosummarize = on);

CREATE TABLE alert_builtin_state (
  rule_id    TEXT PRIMARY KEY,
  state      TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE INDEX incidents_builtin ON incidents(id) WHERE project_id IS NULL;
