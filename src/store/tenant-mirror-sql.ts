// The tenant mirror's SQL (docs/scale-out.md "Tenants"): rows written as PostgreSQL holds them, the
// projects' balance column never touched, and a snapshot applied by writing only the rows that differ,
// in slices of about 2 ms (a reload of 20,000 keys must not hold the event loop), revocations first.
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

/** A row's identity as the sync compares it: a table letter and the row's key columns. A row
 * mirrored one by one during a sliced sync is skipped by it (the snapshot may be older). */
export const identity = {
  project: (id: string) => `p${JSON.stringify([id])}`,
  key: (id: string) => `k${JSON.stringify([id])}`,
  providerKey: (projectId: string, provider: string) => `v${JSON.stringify([projectId, provider])}`,
};

/** How long one slice of a sync may hold the event loop, and the rows read from the mirror at once. */
const SLICE_MS = 2;
const PAGE = 500;

/** Counts the rows a slice changed and says when the slice has run its time. */
class Slice {
  changed = 0;
  private start = performance.now();
  private n = 0;
  due(): boolean {
    return (++this.n & 15) === 0 && performance.now() - this.start >= SLICE_MS;
  }
  /** The slice's count, the next slice started. */
  next(): number {
    const changed = this.changed;
    this.changed = 0;
    this.start = performance.now();
    return changed;
  }
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
  // Read a page at a time after the last identity seen, so no read holds the loop for long.
  const projects = db.query<unknown[], [string]>(`SELECT id, name, plan, billing_mode, credit_limit, policy, created_at FROM projects WHERE id > ? ORDER BY id LIMIT ${PAGE}`);
  const keys = db.query<unknown[], [string]>(`SELECT id, project_id, name, key_hash, mode, scopes, byok, ip_allowlist, created_at, revoked_at FROM api_keys WHERE id > ? ORDER BY id LIMIT ${PAGE}`);
  const providerKeys = db.query<unknown[], [string, string]>(`SELECT project_id, provider, sealed_key, base_url, updated_at FROM provider_keys
    WHERE (project_id, provider) > (?, ?) ORDER BY project_id, provider LIMIT ${PAGE}`);
  const activeKeys = db.query<unknown[], [string]>(`SELECT id FROM api_keys WHERE revoked_at IS NULL AND id > ? ORDER BY id LIMIT ${PAGE * 4}`);

  /** A table's rows by identity, each as the text of its columns, one page per slice. */
  function* read(page: (after: string[]) => unknown[][], table: string, idColumns: number, slice: Slice): Generator<number, Map<string, string>> {
    const have = new Map<string, string>();
    for (let after = idColumns === 1 ? [""] : ["", ""]; ;) {
      const rows = page(after);
      for (const r of rows) have.set(table + JSON.stringify(r.slice(0, idColumns)), JSON.stringify(r));
      if (rows.length < PAGE) return have;
      after = rows.at(-1)!.slice(0, idColumns).map(String);
      yield slice.next();
    }
  }

  /** Upserts the wanted rows that differ from `have`, deleting the ones seen from it: what is left
   * in `have` is the identities the snapshot lacks. */
  function* upsertChanged<T>(have: Map<string, string>, want: T[], params: (row: T) => Params, table: string, idColumns: number,
    write: (p: Params) => void, skip: (id: string) => boolean, slice: Slice): Generator<number, void> {
    for (const row of want) {
      const p = params(row);
      const id = table + JSON.stringify(p.slice(0, idColumns));
      const had = have.get(id);
      have.delete(id);
      if (had !== JSON.stringify(p) && !skip(id)) {
        write(p);
        slice.changed++;
      }
      if (slice.due()) yield slice.next();
    }
  }

  /** Keys the mirror still accepts that the snapshot revoked or lacks, written before anything else. */
  function* revocations(want: Map<string, ApiKey>, skip: (id: string) => boolean, slice: Slice): Generator<number, void> {
    for (let after = ""; ;) {
      const ids = activeKeys.values(after).map((r) => String(r[0]));
      for (const id of ids) {
        const k = want.get(id);
        if ((k && k.revokedAt === null) || skip(identity.key(id))) continue;
        if (k) key.run(...keyParams(k));
        else dropKey.run(id);
        slice.changed++;
      }
      if (ids.length < PAGE * 4) return;
      after = ids.at(-1)!;
      yield slice.next();
    }
  }

  /** Makes the three tables equal to `s`, yielding after each slice the rows it changed (and
   * returning the last slice's). The caller runs each slice in a transaction, or all in one.
   * `skip`: identities mirrored one by one since the snapshot was read, left as they are. */
  function* syncSlices(s: TenantSnapshot, skip: (id: string) => boolean): Generator<number, number> {
    const slice = new Slice();
    const wantKeys = new Map<string, ApiKey>();
    for (const k of s.keys) {
      wantKeys.set(k.id, k);
      if (slice.due()) yield slice.next();
    }
    yield* revocations(wantKeys, skip, slice);
    // Projects first (keys refer to them), dropped ones last (after their keys).
    const haveProjects = yield* read((a) => projects.values(a[0]!), "p", 1, slice);
    yield* upsertChanged(haveProjects, s.projects, projectParams, "p", 1, (p) => project.run(...p), skip, slice);
    const haveKeys = yield* read((a) => keys.values(a[0]!), "k", 1, slice);
    yield* upsertChanged(haveKeys, s.keys, keyParams, "k", 1, (p) => key.run(...p), skip, slice);
    const haveProviderKeys = yield* read((a) => providerKeys.values(a[0]!, a[1]!), "v", 2, slice);
    yield* upsertChanged(haveProviderKeys, s.providerKeys, providerKeyParams, "v", 2, (p) => providerKey.run(...p), skip, slice);
    // What is left in each `have` the snapshot lacks: keys, provider keys, then their projects.
    const drops: Array<[Map<string, string>, (ids: string[]) => void]> = [
      [haveKeys, ([id]) => dropKey.run(id!)],
      [haveProviderKeys, ([projectId, provider]) => dropProviderKey.run(projectId!, provider!)],
      [haveProjects, ([id]) => dropProject.run(id!)],
    ];
    for (const [have, drop] of drops) {
      for (const id of have.keys()) {
        if (skip(id)) continue;
        drop(JSON.parse(id.slice(1)) as string[]);
        slice.changed++;
        if (slice.due()) yield slice.next();
      }
    }
    return slice.next();
  }

  return {
    project: (p: ProjectRecord) => void project.run(...projectParams(p)),
    key: (k: ApiKey) => void key.run(...keyParams(k)),
    dropKey: (id: string) => void dropKey.run(id),
    syncSlices,
    /** Makes the three tables equal to `s` in one transaction (at start, before anything is served);
     * returns how many rows it changed. */
    sync: (s: TenantSnapshot): number => db.transaction(() => {
      const steps = syncSlices(s, () => false);
      let changed = 0;
      for (let r = steps.next(); ; r = steps.next()) {
        changed += r.value;
        if (r.done) return changed;
      }
    })(),
  };
}
