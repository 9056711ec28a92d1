-- PostgreSQL schema, part 3 (docs/scale-out.md "PostgreSQL"): webhooks and their durable queue
-- (claimed with FOR UPDATE SKIP LOCKED by the leader), alert rules, incidents and status posts.
CREATE TABLE webhook_endpoints (
  id              TEXT PRIMARY KEY,
  project_id      TEXT NOT NULL,
  url             TEXT NOT NULL,
  events          TEXT,
  description     TEXT,
  enabled         BOOLEAN NOT NULL DEFAULT true,
  secret          TEXT NOT NULL,
  previous_secret TEXT,
  rotated_at      BIGINT,
  failing_since   BIGINT,
  disabled_reason TEXT,
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints(project_id, created_at);

CREATE TABLE webhook_events (
  id          TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL,
  type        TEXT NOT NULL,
  natural_key TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  UNIQUE (project_id, type, natural_key)
);
CREATE INDEX webhook_events_project ON webhook_events(project_id, created_at);

CREATE TABLE webhook_queue (
  event_id        TEXT NOT NULL,
  endpoint_id     TEXT NOT NULL,
  attempt         INTEGER NOT NULL DEFAULT 1,
  next_attempt_at BIGINT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (event_id, endpoint_id)
);
CREATE INDEX webhook_queue_due ON webhook_queue(next_attempt_at);

CREATE TABLE webhook_deliveries (
  id               TEXT PRIMARY KEY,
  event_id         TEXT NOT NULL,
  endpoint_id      TEXT NOT NULL,
  event_type       TEXT NOT NULL,
  attempt          INTEGER NOT NULL,
  created_at       BIGINT NOT NULL,
  duration_ms      INTEGER,
  status_code      INTEGER,
  error            TEXT,
  response_excerpt TEXT
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);

CREATE TABLE alert_rules (
  id         TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  rule       TEXT NOT NULL,
  state      TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX alert_rules_project ON alert_rules(project_id, created_at);

CREATE TABLE incidents (
  id          TEXT PRIMARY KEY,
  project_id  TEXT,
  rule_id     TEXT NOT NULL,
  rule_name   TEXT NOT NULL,
  component   TEXT,
  severity    TEXT NOT NULL,
  metric      TEXT NOT NULL,
  threshold   DOUBLE PRECISION NOT NULL,
  "window"    TEXT NOT NULL,
  status      TEXT NOT NULL,
  opened_at   BIGINT NOT NULL,
  resolved_at BIGINT,
  peak_value  DOUBLE PRECISION,
  last_value  DOUBLE PRECISION
);
CREATE INDEX incidents_project ON incidents(project_id, opened_at);
CREATE UNIQUE INDEX incidents_open_rule ON incidents(rule_id) WHERE status = 'opened';

CREATE TABLE status_posts (
  id              TEXT PRIMARY KEY,
  kind            TEXT NOT NULL CHECK (kind IN ('incident', 'maintenance')),
  name            TEXT NOT NULL,
  status          TEXT NOT NULL,
  impact          TEXT NOT NULL DEFAULT 'none',
  components      TEXT NOT NULL DEFAULT '[]',
  scheduled_for   BIGINT,
  scheduled_until BIGINT,
  monitoring_at   BIGINT,
  resolved_at     BIGINT,
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL
);
CREATE INDEX status_posts_created ON status_posts(created_at);

CREATE TABLE status_updates (
  id         TEXT PRIMARY KEY,
  post_id    TEXT NOT NULL,
  status     TEXT NOT NULL,
  body       TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX status_updates_post ON status_updates(post_id, created_at);
