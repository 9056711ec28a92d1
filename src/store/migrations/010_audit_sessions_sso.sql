-- The dashboard's audit log, sign-in sessions and per-project SSO (docs/dashboard.md "Audit log",
-- "Sign-in and roles", "Single sign-on (OIDC)").
-- Append-only: the triggers refuse every UPDATE and DELETE, so an entry once written stays as written.
CREATE TABLE audit_log (
  id          TEXT PRIMARY KEY,
  created_at  INTEGER NOT NULL,
  actor_type  TEXT NOT NULL,
  actor_id    TEXT,
  actor_email TEXT,
  source_ip   TEXT,
  action      TEXT NOT NULL,
  project_id  TEXT,
  target      TEXT,
  outcome     TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
  status      INTEGER,
  details     TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX audit_log_project ON audit_log(project_id, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- Only the SHA-256 of the cookie's id is stored: a copy of the database signs nobody in.
CREATE TABLE dashboard_sessions (
  token_hash  TEXT PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  role        TEXT NOT NULL CHECK (role IN ('operator', 'project')),
  project_id  TEXT,
  key_id      TEXT,
  scopes      TEXT NOT NULL,
  email       TEXT,
  csrf_token  TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);

-- One OIDC client per project; the client secret is sealed like provider keys.
CREATE TABLE project_sso (
  project_id      TEXT PRIMARY KEY,
  issuer          TEXT NOT NULL,
  client_id       TEXT NOT NULL,
  client_secret   TEXT NOT NULL,
  allowed_domains TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
) WITHOUT ROWID;
