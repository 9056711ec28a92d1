-- The dashboard's request-log filters (docs/dashboard.md "Request log"). Each index ends in id, so
-- a filtered page is one index range in id (time) order. Sparse columns get partial indexes: rows
-- without a value (most of them) cost nothing extra on insert. Provider and task have no index:
-- nearly every row has one of a few values, so an index would cost every insert (measured +30%)
-- for little: a scan of the newest rows finds a page of any but the rarest value.
CREATE INDEX requests_project_cache ON requests(project_id, cache, id) WHERE cache IS NOT NULL;
CREATE INDEX requests_project_error_category ON requests(project_id, error_category, id) WHERE error_category IS NOT NULL;
CREATE INDEX requests_project_test ON requests(project_id, id) WHERE test = 1;

-- One row per tag of a request: the row's own tags column is a JSON array, which no index reaches.
-- Kept by triggers, so a row and its tags are written and deleted (retention) in one statement.
CREATE TABLE request_tags (
  project_id TEXT NOT NULL,
  tag        TEXT NOT NULL,
  request_id TEXT NOT NULL,
  PRIMARY KEY (project_id, tag, request_id)
) WITHOUT ROWID;

INSERT OR IGNORE INTO request_tags (project_id, tag, request_id)
  SELECT r.project_id, j.value, r.id FROM requests r, json_each(r.tags) j WHERE r.tags <> '[]' AND j.type = 'text';

CREATE TRIGGER requests_tags_insert AFTER INSERT ON requests WHEN NEW.tags <> '[]' BEGIN
  INSERT OR IGNORE INTO request_tags (project_id, tag, request_id)
    SELECT NEW.project_id, value, NEW.id FROM json_each(NEW.tags) WHERE type = 'text';
END;

CREATE TRIGGER requests_tags_delete AFTER DELETE ON requests WHEN OLD.tags <> '[]' BEGIN
  DELETE FROM request_tags WHERE project_id = OLD.project_id AND request_id = OLD.id
    AND tag IN (SELECT value FROM json_each(OLD.tags) WHERE type = 'text');
END;
