-- Monitoring (docs/webhooks.md, docs/monitoring.md): webhook endpoints, their events and durable
-- delivery queue, alert rules with their state and incidents, the status page's operator posts,
-- and per-component status rollups written with the request-log rows they count.

-- A project's webhook endpoints. Secrets are sealed like provider keys (lib/secret-box.ts); the
-- previous secret keeps signing for 24 h after a rotation. `events`: a JSON array, NULL for all.
CREATE TABLE webhook_endpoints (
  id               TEXT PRIMARY KEY,
  project_id       TEXT NOT NULL,
  url              TEXT NOT NULL,
  events           TEXT,
  description      TEXT,
  enabled          INTEGER NOT NULL DEFAULT 1,
  secret           TEXT NOT NULL,
  previous_secret  TEXT,
  rotated_at       INTEGER,
  -- When deliveries began failing without a success since (five days of it disables the endpoint).
  failing_since    INTEGER,
  disabled_reason  TEXT,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_project ON webhook_endpoints(project_id, created_at);

-- Every event once per natural key (a budget threshold in a period, an incident's opening...): the
-- unique constraint is what makes 200 concurrent requests crossing a threshold send one event.
-- `body`: the JSON envelope exactly as delivered (signed bytes), so retries and replays resend it.
CREATE TABLE webhook_events (
  id           TEXT PRIMARY KEY,
  project_id   TEXT NOT NULL,
  type         TEXT NOT NULL,
  natural_key  TEXT NOT NULL,
  body         TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  UNIQUE (project_id, type, natural_key)
);
CREATE INDEX webhook_events_project ON webhook_events(project_id, created_at);

-- The durable delivery queue: one row per (event, endpoint) still to be attempted. `attempt` is the
-- number the next attempt will carry (1 for the first). A success, a disabling answer or the last
-- failed attempt deletes the row; a restart finds the rest.
CREATE TABLE webhook_queue (
  event_id         TEXT NOT NULL,
  endpoint_id      TEXT NOT NULL,
  attempt          INTEGER NOT NULL DEFAULT 1,
  next_attempt_at  INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  PRIMARY KEY (event_id, endpoint_id)
);
CREATE INDEX webhook_queue_due ON webhook_queue(next_attempt_at);

-- One row per attempt (GET /v1/admin/webhooks/{id}/deliveries). `response_excerpt`: the first 1 KB
-- of the receiver's answer.
CREATE TABLE webhook_deliveries (
  id                TEXT PRIMARY KEY,
  event_id          TEXT NOT NULL,
  endpoint_id       TEXT NOT NULL,
  event_type        TEXT NOT NULL,
  attempt           INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  duration_ms       INTEGER,
  status_code       INTEGER,
  error             TEXT,
  response_excerpt  TEXT
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, id);

-- Alert rules (docs/monitoring.md "Alert rules"). `rule`: the AlertRule JSON with defaults filled
-- in. `state`: the rule's AlertState JSON, stored after each evaluation so a restart keeps it.
-- A deleted rule keeps its row (deleted_at set) so its incidents and audit entries still name a project.
CREATE TABLE alert_rules (
  id          TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL,
  rule        TEXT NOT NULL,
  state       TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  deleted_at  INTEGER
);
CREATE INDEX alert_rules_project ON alert_rules(project_id, created_at);

-- Incidents opened by rules. Built-in provider rules have project_id NULL and a `component`
-- (the status page's component id); a rule deleted later leaves its incidents.
CREATE TABLE incidents (
  id           TEXT PRIMARY KEY,
  project_id   TEXT,
  rule_id      TEXT NOT NULL,
  rule_name    TEXT NOT NULL,
  component    TEXT,
  severity     TEXT NOT NULL,
  metric       TEXT NOT NULL,
  threshold    REAL NOT NULL,
  window       TEXT NOT NULL,
  status       TEXT NOT NULL,
  opened_at    INTEGER NOT NULL,
  resolved_at  INTEGER,
  peak_value   REAL,
  last_value   REAL
);
CREATE INDEX incidents_project ON incidents(project_id, opened_at);
-- At most one open incident per rule, whatever races.
CREATE UNIQUE INDEX incidents_open_rule ON incidents(rule_id) WHERE status = 'opened';

-- The status page's operator posts: incidents and maintenance windows (docs/monitoring.md
-- "Status page"), and their updates. `components`: a JSON array of component ids.
CREATE TABLE status_posts (
  id               TEXT PRIMARY KEY,
  kind             TEXT NOT NULL CHECK (kind IN ('incident', 'maintenance')),
  name             TEXT NOT NULL,
  status           TEXT NOT NULL,
  impact           TEXT NOT NULL DEFAULT 'none',
  components       TEXT NOT NULL DEFAULT '[]',
  scheduled_for    INTEGER,
  scheduled_until  INTEGER,
  monitoring_at    INTEGER,
  resolved_at      INTEGER,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
CREATE INDEX status_posts_created ON status_posts(created_at);
CREATE TABLE status_updates (
  id          TEXT PRIMARY KEY,
  post_id     TEXT NOT NULL,
  status      TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX status_updates_post ON status_updates(post_id, created_at);

-- Per-component traffic for the status page, across projects, caller-side errors left out
-- (docs/monitoring.md "Status page"): minute rows written in the log transaction, compacted into
-- hour rows like metrics_rollups. `component`: api, routing, cache or provider:<id>.
CREATE TABLE status_rollups (
  bucket_ms  INTEGER NOT NULL,
  start_ms   INTEGER NOT NULL,
  component  TEXT NOT NULL,
  requests   INTEGER NOT NULL DEFAULT 0,
  ok         INTEGER NOT NULL DEFAULT 0,
  latency    BLOB NOT NULL DEFAULT x'',
  -- Component first: the status page reads one component's rows over up to 90 days in key order.
  PRIMARY KEY (component, bucket_ms, start_ms)
) WITHOUT ROWID;
-- Compaction and pruning read and delete by time across components.
CREATE INDEX status_rollups_time ON status_rollups(bucket_ms, start_ms);
