// Projects, their policy, API keys and provider keys behind one interface each (docs/scale-out.md
// "PostgreSQL"): src/store/tenant-sqlite.ts wraps today's repos, src/store/postgres/tenant.ts is the
// shared one. Every read but a key's lookup by hash takes the project id.
import type { Policy } from "../schema/admin.ts";
import type { ApiKey } from "./repos/api-keys.ts";
import type { Project } from "./repos/projects.ts";
import type { StoredProviderKey } from "./repos/provider-keys.ts";

/** A project without its balance: money lives in the money store (src/store/money-store.ts).
 * creditLimit in USD, as the admin API shows it. */
export type ProjectRecord = Omit<Project, "balance">;

export type ListedKey = Omit<ApiKey, "keyHash">;

export interface ProjectStore {
  create(p: ProjectRecord): Promise<ProjectRecord>;
  get(projectId: string): Promise<ProjectRecord | null>;
  /** Every project, oldest first. */
  list(): Promise<ProjectRecord[]>;
  /** Name, plan, billing mode and credit limit; false when there is no such project. */
  save(p: ProjectRecord): Promise<boolean>;
  getPolicy(projectId: string): Promise<Policy | null>;
  /** Replaces the whole policy; false when there is no such project. */
  setPolicy(projectId: string, policy: Policy): Promise<boolean>;
}

export interface ApiKeyStore {
  /** Only the key's hash is stored. */
  create(k: ApiKey): Promise<ApiKey>;
  /** Authentication: the hash is all a request brings; the row names its project. */
  findByHash(hash: string): Promise<ApiKey | null>;
  /** null when the key is not the project's. */
  get(projectId: string, keyId: string): Promise<ApiKey | null>;
  /** The project's keys, oldest first, without their hashes. */
  list(projectId: string): Promise<ListedKey[]>;
  /** Sets revokedAt once (a second revoke keeps the first time); null when the key is not the project's. */
  revoke(projectId: string, keyId: string, now: number): Promise<ApiKey | null>;
}

/** Keys arrive sealed (src/lib/secret-box.ts) and are returned sealed: the store holds ciphertext. */
export interface ProviderKeyStore {
  put(k: StoredProviderKey): Promise<void>;
  /** True when a key was there to delete. */
  delete(projectId: string, provider: string): Promise<boolean>;
  list(projectId: string): Promise<StoredProviderKey[]>;
  /** Every project's keys: only the start-up check that each can still be opened reads across projects. */
  listAll(): Promise<StoredProviderKey[]>;
}

export interface TenantStores {
  projects: ProjectStore;
  keys: ApiKeyStore;
  providerKeys: ProviderKeyStore;
}
