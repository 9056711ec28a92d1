// API keys table: only the SHA-256 of a key is stored; lookups go by that hash (docs/api.md "Authentication").
import type { Database } from "bun:sqlite";
import { parseStored } from "../../lib/json.ts";
import type { KeyScope } from "../../config/constants.ts";

export type KeyMode = "live" | "test";

export interface ApiKey {
  id: string;
  projectId: string;
  name: string | null;
  keyHash: string;
  mode: KeyMode;
  scopes: KeyScope[];
  byok: boolean;
  ipAllowlist: string[] | null;
  createdAt: number;
  revokedAt: number | null;
}

interface KeyRow {
  id: string;
  project_id: string;
  name: string | null;
  key_hash: string;
  mode: string;
  scopes: string;
  byok: number;
  ip_allowlist: string | null;
  created_at: number;
  revoked_at: number | null;
}

const fromRow = (r: KeyRow): ApiKey => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  keyHash: r.key_hash,
  mode: r.mode as KeyMode,
  scopes: parseStored<KeyScope[]>(r.scopes, []),
  byok: r.byok === 1,
  ipAllowlist: parseStored<string[] | null>(r.ip_allowlist, null),
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export function apiKeysRepo(db: Database) {
  const insert = db.query(
    `INSERT INTO api_keys (id, project_id, name, key_hash, mode, scopes, byok, ip_allowlist, created_at)
     VALUES ($id, $project_id, $name, $key_hash, $mode, $scopes, $byok, $ip_allowlist, $created_at)`,
  );
  const byHash = db.query<KeyRow, [string]>("SELECT * FROM api_keys WHERE key_hash = ?");
  const byId = db.query<KeyRow, [string]>("SELECT * FROM api_keys WHERE id = ?");
  // Never the hash: the dashboard lists keys, and a hash is all it takes to look one up.
  const byProject = db.query<Omit<KeyRow, "key_hash">, [string]>(
    "SELECT id, project_id, name, mode, scopes, byok, ip_allowlist, created_at, revoked_at FROM api_keys WHERE project_id = ? ORDER BY created_at, id",
  );
  const revoke = db.query<KeyRow, [number, string]>(
    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING *",
  );

  return {
    create(k: ApiKey): ApiKey {
      insert.run({
        id: k.id,
        project_id: k.projectId,
        name: k.name,
        key_hash: k.keyHash,
        mode: k.mode,
        scopes: JSON.stringify(k.scopes),
        byok: k.byok ? 1 : 0,
        ip_allowlist: k.ipAllowlist ? JSON.stringify(k.ipAllowlist) : null,
        created_at: k.createdAt,
      });
      return k;
    },
    findByHash(hash: string): ApiKey | null {
      const row = byHash.get(hash);
      return row ? fromRow(row) : null;
    },
    get(id: string): ApiKey | null {
      const row = byId.get(id);
      return row ? fromRow(row) : null;
    },
    /** The project's keys, oldest first, without their hashes. */
    listByProject(projectId: string): Array<Omit<ApiKey, "keyHash">> {
      return byProject.all(projectId).map((r) => {
        const { keyHash: _, ...key } = fromRow({ ...r, key_hash: "" });
        return key;
      });
    },
    revoke(id: string, now: number): ApiKey | null {
      const row = revoke.get(now, id);
      return row ? fromRow(row) : null;
    },
  };
}

export type ApiKeysRepo = ReturnType<typeof apiKeysRepo>;
