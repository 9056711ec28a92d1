// One admin write in the multi-instance mode (docs/scale-out.md): the admin code runs on
// `repos` as on single-node, reading the mirror; its writes are recorded, and commit() writes them
// to PostgreSQL, then to the mirror, then names the rows on the bus. A failure changes nothing here.
import { GwError } from "../errors/gw-error.ts";
import { StoreUnavailable } from "./postgres/connect.ts";
import type { TenantRows } from "./postgres/tenant.ts";
import type { TenantChange } from "./redis/bus.ts";
import type { ApiKey, ApiKeysRepo } from "./repos/api-keys.ts";
import type { Project, ProjectsRepo } from "./repos/projects.ts";
import type { ProviderKeysRepo, StoredProviderKey } from "./repos/provider-keys.ts";
import type { ProjectRecord, TenantStores } from "./tenant-store.ts";

export interface MirroredRepos {
  projects: ProjectsRepo;
  apiKeys: ApiKeysRepo;
  providerKeys: ProviderKeysRepo;
}

/** What an admin handler writes through, then answers with `commit(answer)`: single-node's repos,
 * `answer` run at once; or a TenantWrite, `answer` run once PostgreSQL committed (a promise). */
export interface TenantWriter {
  readonly repos: MirroredRepos;
  commit<T>(answer: () => T): T | Promise<T>;
}

export const directWrite = (repos: MirroredRepos): TenantWriter => ({ repos, commit: (answer) => answer() });

/** PostgreSQL could not be used: a 503 in the envelope, and nothing was changed. */
export function tenantUnavailable(err: unknown): unknown {
  if (!(err instanceof StoreUnavailable)) return err;
  return new GwError("service_unavailable", "Projects and keys cannot be read or written right now (PostgreSQL unavailable); retry later.", { retryAfter: 5, cause: err });
}

/** Where a committed row goes on this instance. */
export interface MirrorSink {
  project(p: ProjectRecord): void;
  key(k: ApiKey): void;
  providerKey(k: StoredProviderKey, gone: boolean): void;
  published(change: Omit<TenantChange, "from">): Promise<void>;
}

interface Op {
  pg(): Promise<void>;
  mirror(): void;
  change: Omit<TenantChange, "from">;
}

const recordOf = ({ balance: _, ...p }: Project): ProjectRecord => p;

/** Another write changed the project after this one read it: the caller reads it again and retries. */
export class ProjectChanged extends GwError {
  constructor(readonly projectId: string) {
    super("conflict", `Project '${projectId}' was changed by another request at the same time; retry.`);
  }
}

export class TenantWrite implements TenantWriter {
  readonly repos: MirroredRepos;
  private readonly ops: Op[] = [];

  constructor(base: MirroredRepos, stores: TenantStores, rows: TenantRows, private readonly sink: MirrorSink) {
    const record = (op: Op) => void this.ops.push(op);
    const projectOp = (p: Project, pg: () => Promise<void>): Op => ({ pg, mirror: () => sink.project(recordOf(p)), change: { kind: "project", project: p.id, id: p.id } });
    this.repos = {
      projects: {
        ...base.projects,
        create: (p) => (record(projectOp(p, async () => void (await stores.projects.create(recordOf(p))))), p),
        save: (p) => {
          // What the change was computed from: the mirror's row, not yet changed.
          const old = base.projects.get(p.id);
          record(projectOp(p, async () => {
            const saved = old ? await rows.saveProject(recordOf(p), recordOf(old)) : "missing";
            if (saved === "missing") throw new GwError("not_found", `No project '${p.id}'.`, { param: "id" });
            if (saved === "changed") throw new ProjectChanged(p.id);
          }));
          return p;
        },
        addCredits: () => {
          throw new Error("credits are the money store's in the multi-instance mode");
        },
      },
      apiKeys: {
        ...base.apiKeys,
        create: (k) => (record({ pg: async () => void (await stores.keys.create(k)), mirror: () => sink.key(k), change: { kind: "key", project: k.projectId, id: k.id } }), k),
        revoke: (id, now) => {
          const old = base.apiKeys.get(id);
          if (!old) return null;
          let row: ApiKey = { ...old, revokedAt: old.revokedAt ?? now };
          record({
            pg: async () => void (row = (await stores.keys.revoke(old.projectId, id, now)) ?? row),
            mirror: () => sink.key(row),
            change: { kind: "key", project: old.projectId, id },
          });
          return row;
        },
      },
      providerKeys: {
        ...base.providerKeys,
        put: (k) => record({ pg: () => stores.providerKeys.put(k), mirror: () => sink.providerKey(k, false), change: { kind: "provider_key", project: k.projectId, id: k.provider } }),
        delete: (projectId, provider) => {
          const old = base.providerKeys.list(projectId).find((k) => k.provider === provider);
          if (!old) return false;
          record({ pg: async () => void (await stores.providerKeys.delete(projectId, provider)), mirror: () => sink.providerKey(old, true), change: { kind: "provider_key", project: projectId, id: provider } });
          return true;
        },
      },
    };
  }

  /** Every recorded write committed in PostgreSQL and mirrored, then `answer`; a failure rejects
   * (a 503 GwError when PostgreSQL could not be used) and nothing is mirrored. */
  async commit<T>(answer: () => T): Promise<T> {
    for (const op of this.ops) {
      try {
        await op.pg();
      } catch (err) {
        throw tenantUnavailable(err);
      }
    }
    for (const op of this.ops) op.mirror();
    for (const op of this.ops) void this.sink.published(op.change);
    return answer();
  }
}
