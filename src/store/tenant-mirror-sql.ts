// The tenant mirror's SQL (docs/scale-out.md): rows written as PostgreSQL holds them, the projects'
// balance column never touched, and a whole snapshot applied by writing only the rows that differ
// (a reload every 30 s that finds nothing new must not rewrite thousands of rows).
import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { TenantSnapshot } from "./postgres/tenant.ts";
import type { ApiKey } from "./repos/api-keys.ts";
import type { StoredProviderKey } from "./repos/provider-keys.ts";
import type { ProjectRecord } from "./tenant-store.ts";

type Params = SQLQueryBindings[];

// Column order of each table's upsert and of the read it is compared with.
const projectParams = (p: ProjectRecord): Params => [p.id, p.name, p.plan, p.billingMode, p.creditLimit, JSON.stringify(p.policy), p.createdAt];
const keyParams = (k: ApiKey): Params => [k.id, k.projectId, k.name, k.keyHash, k.mode, JSON.stringify(k.scopes), k.byok ? 1 : 0,
  k.ipAllowlist ? JSON.stringify(k.ipAllowlist) : null, k.createdAt, k.revokedAt];
const providerKeyParams = (k: StoredProviderKey): Params => [k.projectId, k.provider, k.sealedKey, k.baseUrl, k.updatedAt];

/** Rows by identity, each as the text of its columns, for comparing the mirror with a snapshot. */
function byIdentity(rows: unknown[][], idColumns: number): Map<string, string> {
  return new Map(rows.map((r) => [JSON.stringify(r.slice(0, idColumns)), JSON.stringify(r)]));
}

export function mirrorStatements(db: Database) {
  const project = db.query<unknown, Params>(
    `INSERT INTO projects (id, name, plan, billing_mode, balance, credit_limit, policy, created_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, plan = excluded.plan, billing_mode = excluded.billing_mode,
       credit_limit = excluded.credit_limit, policy = excluded.policy`,
  );
  const key = db.query<unknown, Params>(
    `INSERT INTO api_keys (id, project_id, name, key_hash, mode, scopes, byok, ip_allowlist, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, scopes = excluded.scopes, byok = excluded.byok,
       ip_allowlist = excluded.ip_allowlist, revoked_at = excluded.revoked_at`,
  );
  const providerKey = db.query<unknown, Params>(
    `INSERT INTO provider_keys (project_id, provider, sealed_key, base_url, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id, provider) DO UPDATE SET sealed_key = excluded.sealed_key, base_url = excluded.base_url, updated_at = excluded.updated_at`,
  );
  const dropKey = db.query<unknown, [string]>("DELETE FROM api_keys WHERE id = ?");
  const dropProviderKey = db.query<unknown, [string, string]>("DELETE FROM provider_keys WHERE project_id = ? AND provider = ?");
  const dropProject = db.query<unknown, [string]>("DELETE FROM projects WHERE id = ?");
  const projects = db.query("SELECT id, name, plan, billing_mode, credit_limit, policy, created_at FROM projects");
  const keys = db.query("SELECT id, project_id, name, key_hash, mode, scopes, byok, ip_allowlist, created_at, revoked_at FROM api_keys");
  const providerKeys = db.query("SELECT project_id, provider, sealed_key, base_url, updated_at FROM provider_keys");

  /** Upserts the wanted rows that differ from `have`; returns the identities not wanted. */
  const upsertChanged = (have: Map<string, string>, want: Params[], idColumns: number, write: (p: Params) => void, changed: { n: number }) => {
    const gone = new Set(have.keys());
    for (const p of want) {
      const id = JSON.stringify(p.slice(0, idColumns));
      gone.delete(id);
      if (have.get(id) === JSON.stringify(p)) continue;
      write(p);
      changed.n++;
    }
    return [...gone].map((id) => JSON.parse(id) as string[]);
  };

  return {
    project: (p: ProjectRecord) => void project.run(...projectParams(p)),
    key: (k: ApiKey) => void key.run(...keyParams(k)),
    dropKey: (id: string) => void dropKey.run(id),
    /** Makes the three tables equal to `s` in one transaction; returns how many rows it changed. */
    sync: (s: TenantSnapshot): number => db.transaction(() => {
      const changed = { n: 0 };
      // Projects first (keys refer to them), dropped ones last (after their keys).
      const goneProjects = upsertChanged(byIdentity(projects.values(), 1), s.projects.map(projectParams), 1, (p) => project.run(...p), changed);
      const goneKeys = upsertChanged(byIdentity(keys.values(), 1), s.keys.map(keyParams), 1, (p) => key.run(...p), changed);
      const goneProviderKeys = upsertChanged(byIdentity(providerKeys.values(), 2), s.providerKeys.map(providerKeyParams), 2, (p) => providerKey.run(...p), changed);
      for (const [id] of goneKeys) dropKey.run(id!);
      for (const [projectId, provider] of goneProviderKeys) dropProviderKey.run(projectId!, provider!);
      for (const [id] of goneProjects) dropProject.run(id!);
      return changed.n + goneKeys.length + goneProviderKeys.length + goneProjects.length;
    })(),
  };
}
