-- Bring-your-own provider keys (issue 4 item 7): one per project and provider, the key sealed
-- with AES-256-GCM (lib/secret-box.ts); never returned by any endpoint.
CREATE TABLE provider_keys (
  project_id  TEXT NOT NULL REFERENCES projects(id),
  provider    TEXT NOT NULL,
  sealed_key  TEXT NOT NULL,
  base_url    TEXT,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (project_id, provider)
);
