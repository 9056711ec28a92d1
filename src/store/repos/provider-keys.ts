// Projects' own provider keys (issue 4 item 7), stored sealed; every read takes the project id but
// listAll (the start-up check that the keys can still be opened).
import type { Database } from "bun:sqlite";

export interface StoredProviderKey {
  projectId: string;
  provider: string;
  sealedKey: string;
  baseUrl: string | null;
  updatedAt: number;
}

interface Row { project_id: string; provider: string; sealed_key: string; base_url: string | null; updated_at: number }

const fromRow = (r: Row): StoredProviderKey => ({
  projectId: r.project_id, provider: r.provider, sealedKey: r.sealed_key, baseUrl: r.base_url, updatedAt: r.updated_at,
});

export function providerKeysRepo(db: Database) {
  const upsert = db.query<unknown, [string, string, string, string | null, number]>(
    `INSERT INTO provider_keys (project_id, provider, sealed_key, base_url, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id, provider) DO UPDATE SET sealed_key = excluded.sealed_key, base_url = excluded.base_url, updated_at = excluded.updated_at`,
  );
  const remove = db.query<unknown, [string, string]>("DELETE FROM provider_keys WHERE project_id = ? AND provider = ?");
  const byProject = db.query<Row, [string]>("SELECT * FROM provider_keys WHERE project_id = ? ORDER BY provider");
  const everyKey = db.query<Row, []>("SELECT * FROM provider_keys ORDER BY project_id, provider");
  return {
    put(k: StoredProviderKey): void {
      upsert.run(k.projectId, k.provider, k.sealedKey, k.baseUrl, k.updatedAt);
    },
    /** True when a key was there to delete. */
    delete(projectId: string, provider: string): boolean {
      return remove.run(projectId, provider).changes > 0;
    },
    list(projectId: string): StoredProviderKey[] {
      return byProject.all(projectId).map(fromRow);
    },
    /** Every project's keys: only the start-up check that each can still be opened reads across projects. */
    listAll(): StoredProviderKey[] {
      return everyKey.all().map(fromRow);
    },
  };
}

export type ProviderKeysRepo = ReturnType<typeof providerKeysRepo>;
