-- PostgreSQL schema, part 10 (docs/scale-out.md "Alerts, incidents and the status page"): the
-- leader's alert evaluation and status rollups. The status rollup job reads the last minutes of
-- every project's requests by time; built-in provider rules keep their state across leaders.
CREATE INDEX requests_created ON requests(created_at);

CREATE TABLE alert_builtin_state (
  rule_id    TEXT PRIMARY KEY,
  state      TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE INDEX incidents_builtin ON incidents(id) WHERE project_id IS NULL;
