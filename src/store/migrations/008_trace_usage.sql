-- Stored trace size per project (docs/observability.md "Trace storage"), kept by triggers so the
-- GW_PROJECT_LOG_MB budget is one key lookup. Traces stored before this migration are not counted,
-- and their deletion by retention does not take usage below zero.
CREATE TABLE trace_usage (
  project_id TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER traces_usage_insert AFTER INSERT ON traces BEGIN
  INSERT INTO trace_usage (project_id, bytes) VALUES (NEW.project_id, length(NEW.data))
    ON CONFLICT (project_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER traces_usage_delete AFTER DELETE ON traces BEGIN
  UPDATE trace_usage SET bytes = max(0, bytes - length(OLD.data)) WHERE project_id = OLD.project_id;
END;
