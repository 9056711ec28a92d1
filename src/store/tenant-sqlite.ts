// The single-node tenant stores (src/store/tenant-store.ts): today's SQLite repos, unchanged,
// behind the shared interfaces. Each call is synchronous underneath, so check-then-write is one step.
import type { Database } from "bun:sqlite";
import { apiKeysRepo } from "./repos/api-keys.ts";
import { projectsRepo, type Project } from "./repos/projects.ts";
import { providerKeysRepo } from "./repos/provider-keys.ts";
import type { ApiKeyStore, ProjectRecord, ProjectStore, ProviderKeyStore, TenantStores } from "./tenant-store.ts";

const record = ({ balance: _, ...p }: Project): ProjectRecord => p;

export function sqliteProjectStore(db: Database): ProjectStore {
  const repo = projectsRepo(db);
  return {
    create: async (p) => record(repo.create({ ...p, balance: 0 })),
    get: async (id) => {
      const p = repo.get(id);
      return p ? record(p) : null;
    },
    list: async () => repo.list().map(record),
    async save(p) {
      const old = repo.get(p.id);
      if (!old) return false;
      // The balance column is the repo's own; only the record's fields change.
      repo.save({ ...old, name: p.name, plan: p.plan, billingMode: p.billingMode, creditLimit: p.creditLimit });
      return true;
    },
    getPolicy: async (id) => repo.get(id)?.policy ?? null,
    async setPolicy(id, policy) {
      const old = repo.get(id);
      if (!old) return false;
      repo.save({ ...old, policy });
      return true;
    },
  };
}

export function sqliteApiKeyStore(db: Database): ApiKeyStore {
  const repo = apiKeysRepo(db);
  const own = (projectId: string, id: string) => {
    const k = repo.get(id);
    return k && k.projectId === projectId ? k : null;
  };
  return {
    create: async (k) => repo.create(k),
    findByHash: async (hash) => repo.findByHash(hash),
    get: async (projectId, id) => own(projectId, id),
    list: async (projectId) => repo.listByProject(projectId),
    revoke: async (projectId, id, now) => (own(projectId, id) ? repo.revoke(id, now) : null),
  };
}

export function sqliteProviderKeyStore(db: Database): ProviderKeyStore {
  const repo = providerKeysRepo(db);
  return {
    put: async (k) => repo.put(k),
    delete: async (projectId, provider) => repo.delete(projectId, provider),
    list: async (projectId) => repo.list(projectId),
    listAll: async () => repo.listAll(),
  };
}

export const sqliteTenantStores = (db: Database): TenantStores => ({
  projects: sqliteProjectStore(db),
  keys: sqliteApiKeyStore(db),
  providerKeys: sqliteProviderKeyStore(db),
});
