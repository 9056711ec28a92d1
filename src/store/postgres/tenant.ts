// Projects, policy, API keys and sealed provider keys on PostgreSQL (src/store/tenant-store.ts):
// tagged templates, so each statement is prepared once per connection; every call bounded.
import type { KeyScope } from "../../config/constants.ts";
import { parseStored } from "../../lib/json.ts";
import { policyFrom } from "../../schema/admin.ts";
import type { ApiKey, KeyMode } from "../repos/api-keys.ts";
import type { BillingMode, Plan } from "../repos/projects.ts";
import type { StoredProviderKey } from "../repos/provider-keys.ts";
import type { ApiKeyStore, ListedKey, ProjectRecord, ProjectStore, ProviderKeyStore, TenantStores } from "../tenant-store.ts";
import type { SQL } from "bun";
import { bounded, type Postgres } from "./connect.ts";

type Row = Record<string, unknown>;
const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
// The credit limit is USD in the interface and nano-USD in the column (docs/scale-out.md "PostgreSQL").
const toNano = (usd: number | null): number | null => (usd === null ? null : Math.round(usd * 1e9));
const toUsd = (nano: unknown): number | null => (nano === null || nano === undefined ? null : Number(nano) / 1e9);

const projectOf = (r: Row): ProjectRecord => ({
  id: str(r.id), name: str(r.name), plan: str(r.plan) as Plan, billingMode: str(r.billing_mode) as BillingMode,
  creditLimit: toUsd(r.credit_limit), policy: policyFrom(parseStored<unknown>(str(r.policy), {})), createdAt: Number(r.created_at),
});

const listedOf = (r: Row): ListedKey => ({
  id: str(r.id), projectId: str(r.project_id), name: strOrNull(r.name), mode: str(r.mode) as KeyMode,
  scopes: parseStored<KeyScope[]>(str(r.scopes), []), byok: r.byok === true,
  ipAllowlist: parseStored<string[] | null>(strOrNull(r.ip_allowlist), null), createdAt: Number(r.created_at), revokedAt: numOrNull(r.revoked_at),
});
const keyOf = (r: Row): ApiKey => ({ ...listedOf(r), keyHash: str(r.key_hash) });

const providerKeyOf = (r: Row): StoredProviderKey => ({
  projectId: str(r.project_id), provider: str(r.provider), sealedKey: str(r.sealed_key), baseUrl: strOrNull(r.base_url), updatedAt: Number(r.updated_at),
});

export function postgresProjectStore(pg: Postgres): ProjectStore {
  const { sql } = pg;
  return {
    create: (p) => bounded(pg, "project create", async () => {
      await sql`INSERT INTO projects (id, name, plan, billing_mode, credit_limit, policy, created_at)
        VALUES (${p.id}, ${p.name}, ${p.plan}, ${p.billingMode}, ${toNano(p.creditLimit)}, ${JSON.stringify(p.policy)}, ${p.createdAt})`;
      return p;
    }),
    get: (id) => bounded(pg, "project read", async () => {
      const [row]: Row[] = await sql`SELECT * FROM projects WHERE id = ${id}`;
      return row ? projectOf(row) : null;
    }),
    list: () => bounded(pg, "project list", async () => {
      const rows: Row[] = await sql`SELECT * FROM projects ORDER BY created_at, id`;
      return rows.map(projectOf);
    }),
    save: (p) => bounded(pg, "project save", async () => {
      const rows: Row[] = await sql`UPDATE projects SET name = ${p.name}, plan = ${p.plan}, billing_mode = ${p.billingMode},
        credit_limit = ${toNano(p.creditLimit)} WHERE id = ${p.id} RETURNING id`;
      return rows.length > 0;
    }),
    getPolicy: (id) => bounded(pg, "policy read", async () => {
      const [row]: Row[] = await sql`SELECT policy FROM projects WHERE id = ${id}`;
      return row ? policyFrom(parseStored<unknown>(str(row.policy), {})) : null;
    }),
    setPolicy: (id, policy) => bounded(pg, "policy save", async () => {
      const rows: Row[] = await sql`UPDATE projects SET policy = ${JSON.stringify(policy)} WHERE id = ${id} RETURNING id`;
      return rows.length > 0;
    }),
  };
}

export function postgresApiKeyStore(pg: Postgres): ApiKeyStore {
  const { sql } = pg;
  return {
    create: (k) => bounded(pg, "key create", async () => {
      await sql`INSERT INTO api_keys (id, project_id, name, key_hash, mode, scopes, byok, ip_allowlist, created_at)
        VALUES (${k.id}, ${k.projectId}, ${k.name}, ${k.keyHash}, ${k.mode}, ${JSON.stringify(k.scopes)}, ${k.byok},
          ${k.ipAllowlist ? JSON.stringify(k.ipAllowlist) : null}, ${k.createdAt})`;
      return k;
    }),
    findByHash: (hash) => bounded(pg, "key lookup", async () => {
      const [row]: Row[] = await sql`SELECT * FROM api_keys WHERE key_hash = ${hash}`;
      return row ? keyOf(row) : null;
    }),
    get: (projectId, id) => bounded(pg, "key read", async () => {
      const [row]: Row[] = await sql`SELECT * FROM api_keys WHERE id = ${id} AND project_id = ${projectId}`;
      return row ? keyOf(row) : null;
    }),
    // Never the hash: a hash is all it takes to look a key up.
    list: (projectId) => bounded(pg, "key list", async () => {
      const rows: Row[] = await sql`SELECT id, project_id, name, mode, scopes, byok, ip_allowlist, created_at, revoked_at
        FROM api_keys WHERE project_id = ${projectId} ORDER BY created_at, id`;
      return rows.map(listedOf);
    }),
    revoke: (projectId, id, now) => bounded(pg, "key revoke", async () => {
      const [row]: Row[] = await sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${now})
        WHERE id = ${id} AND project_id = ${projectId} RETURNING *`;
      return row ? keyOf(row) : null;
    }),
  };
}

export function postgresProviderKeyStore(pg: Postgres): ProviderKeyStore {
  const { sql } = pg;
  return {
    put: (k) => bounded(pg, "provider key save", async () => {
      await sql`INSERT INTO provider_keys (project_id, provider, sealed_key, base_url, updated_at)
        VALUES (${k.projectId}, ${k.provider}, ${k.sealedKey}, ${k.baseUrl}, ${k.updatedAt})
        ON CONFLICT (project_id, provider) DO UPDATE SET sealed_key = excluded.sealed_key,
          base_url = excluded.base_url, updated_at = excluded.updated_at`;
    }),
    delete: (projectId, provider) => bounded(pg, "provider key delete", async () => {
      const rows: Row[] = await sql`DELETE FROM provider_keys WHERE project_id = ${projectId} AND provider = ${provider} RETURNING provider`;
      return rows.length > 0;
    }),
    list: (projectId) => bounded(pg, "provider key list", async () => {
      const rows: Row[] = await sql`SELECT * FROM provider_keys WHERE project_id = ${projectId} ORDER BY provider`;
      return rows.map(providerKeyOf);
    }),
    listAll: () => bounded(pg, "provider key list", async () => {
      const rows: Row[] = await sql`SELECT * FROM provider_keys ORDER BY project_id, provider`;
      return rows.map(providerKeyOf);
    }),
  };
}

/** Every tenant row, read in one REPEATABLE READ transaction: what an instance's mirror is
 * replaced with (src/store/tenant-mirror.ts). Keys carry their hashes: the mirror authenticates. */
export interface TenantSnapshot {
  projects: ProjectRecord[];
  keys: ApiKey[];
  providerKeys: StoredProviderKey[];
  /** TenantRows.digest() of these rows. */
  digest: string;
}

/** The mirror's reads and its one write the shared interfaces lack (a project saved whole). */
export interface TenantRows {
  snapshot(): Promise<TenantSnapshot>;
  /** One hash of every tenant row, computed by PostgreSQL: a reload that finds it unchanged reads nothing more. */
  digest(): Promise<string>;
  project(id: string): Promise<ProjectRecord | null>;
  /** A key by id alone: an invalidation names the row, the mirror knows no more. */
  key(id: string): Promise<ApiKey | null>;
  providerKey(projectId: string, provider: string): Promise<StoredProviderKey | null>;
  /** Name, plan, billing and policy, saved only while the row is still `expected` (what the
   * change was computed from): "changed" when another write came first, "missing" when there is none. */
  saveProject(p: ProjectRecord, expected: ProjectRecord): Promise<"saved" | "changed" | "missing">;
}

// Each table's rows as text, in a fixed order, hashed together.
const digestOf = async (q: SQL): Promise<string> => {
  const [row]: Row[] = await q`SELECT md5(
    coalesce((SELECT string_agg(t::text, ',' ORDER BY t.id) FROM projects t), '') || '|' ||
    coalesce((SELECT string_agg(t::text, ',' ORDER BY t.id) FROM api_keys t), '') || '|' ||
    coalesce((SELECT string_agg(t::text, ',' ORDER BY t.project_id, t.provider) FROM provider_keys t), '')) AS digest`;
  return str(row?.digest);
};

/** Rows read and converted a page at a time, so no one answer holds the event loop for long
 * (20,000 keys: ten pages of about 1-2 ms each instead of one block). */
const SNAPSHOT_PAGE = 2_000;

async function paged<T>(read: (after: string) => Promise<Row[]>, of: (r: Row) => T): Promise<T[]> {
  const out: T[] = [];
  for (let after = ""; ;) {
    const rows = await read(after);
    for (const r of rows) out.push(of(r));
    if (rows.length < SNAPSHOT_PAGE) return out;
    after = str(rows.at(-1)?.id);
  }
}

export function postgresTenantRows(pg: Postgres): TenantRows {
  const { sql } = pg;
  return {
    snapshot: () => bounded(pg, "tenant snapshot", () => sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
      const projects = await paged((after) => tx`SELECT * FROM projects WHERE id > ${after} ORDER BY id LIMIT ${SNAPSHOT_PAGE}`, projectOf);
      const keys = await paged((after) => tx`SELECT * FROM api_keys WHERE id > ${after} ORDER BY id LIMIT ${SNAPSHOT_PAGE}`, keyOf);
      const providerKeys: Row[] = await tx`SELECT * FROM provider_keys ORDER BY project_id, provider`;
      return { projects, keys, providerKeys: providerKeys.map(providerKeyOf), digest: await digestOf(tx) };
    })),
    digest: () => bounded(pg, "tenant digest", () => digestOf(sql)),
    project: (id) => bounded(pg, "project read", async () => {
      const [row]: Row[] = await sql`SELECT * FROM projects WHERE id = ${id}`;
      return row ? projectOf(row) : null;
    }),
    key: (id) => bounded(pg, "key read", async () => {
      const [row]: Row[] = await sql`SELECT * FROM api_keys WHERE id = ${id}`;
      return row ? keyOf(row) : null;
    }),
    providerKey: (projectId, provider) => bounded(pg, "provider key read", async () => {
      const [row]: Row[] = await sql`SELECT * FROM provider_keys WHERE project_id = ${projectId} AND provider = ${provider}`;
      return row ? providerKeyOf(row) : null;
    }),
    saveProject: (p, expected) => bounded(pg, "project save", () => sql.begin(async (tx) => {
      const [row]: Row[] = await tx`SELECT * FROM projects WHERE id = ${p.id} FOR UPDATE`;
      if (!row) return "missing";
      // Compared as records: both sides read through projectOf's normalisation.
      if (JSON.stringify(projectOf(row)) !== JSON.stringify(expected)) return "changed";
      await tx`UPDATE projects SET name = ${p.name}, plan = ${p.plan}, billing_mode = ${p.billingMode},
        credit_limit = ${toNano(p.creditLimit)}, policy = ${JSON.stringify(p.policy)} WHERE id = ${p.id}`;
      return "saved";
    })),
  };
}

export const postgresTenantStores = (pg: Postgres): TenantStores => ({
  projects: postgresProjectStore(pg),
  keys: postgresApiKeyStore(pg),
  providerKeys: postgresProviderKeyStore(pg),
});
