// Per-project SSO clients on PostgreSQL (docs/scale-out.md): project_sso as SQLite's repo keeps it,
// the secret sealed with the key every instance shares. Each instance's SQLite keeps a copy, re-read
// every few seconds, for the checks that stay synchronous (a dashboard session's SSO client).
import type { SQL } from "bun";
import { parseStored } from "../../lib/json.ts";
import type { ProjectSsoRepo, ProjectSsoStore, StoredSso } from "../repos/project-sso.ts";
import { bounded, type Postgres } from "./connect.ts";

/** pg_advisory_xact_lock key of SSO writes ("gw" and 0x11): a domain is checked and claimed by one writer at a time. */
const SSO_WRITE_LOCK = 0x67770011;
export const SSO_MIRROR_MS = 3_000;

interface Row {
  project_id: string; issuer: string; client_id: string; client_secret: string; allowed_domains: string;
  created_at: string | number; updated_at: string | number;
}

const fromRow = (r: Row): StoredSso => ({
  projectId: r.project_id, issuer: r.issuer, clientId: r.client_id, sealedSecret: r.client_secret,
  allowedDomains: parseStored<string[]>(r.allowed_domains, []), createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
});

export interface PostgresSsoStore extends ProjectSsoStore {
  put(s: StoredSso): Promise<void>;
  get(projectId: string): Promise<StoredSso | null>;
  delete(projectId: string): Promise<boolean>;
  findByDomain(domain: string): Promise<StoredSso | null>;
  all(): Promise<StoredSso[]>;
  /** Stores the client (keeping its first creation time) unless another project's client holds one
   * of its domains: then that domain (the first in `s`'s order) and nothing written. */
  putUnlessClaimed(s: StoredSso): Promise<{ ok: true; stored: StoredSso } | { ok: false; domain: string }>;
}

export function postgresSsoStore(pg: Postgres): PostgresSsoStore {
  const { sql } = pg;
  const upsert = (q: SQL, s: StoredSso) => q`
    INSERT INTO project_sso (project_id, issuer, client_id, client_secret, allowed_domains, created_at, updated_at)
    VALUES (${s.projectId}, ${s.issuer}, ${s.clientId}, ${s.sealedSecret}, ${JSON.stringify(s.allowedDomains)}, ${s.createdAt}::bigint, ${s.updatedAt}::bigint)
    ON CONFLICT (project_id) DO UPDATE SET issuer = excluded.issuer, client_id = excluded.client_id,
      client_secret = excluded.client_secret, allowed_domains = excluded.allowed_domains, updated_at = excluded.updated_at
    RETURNING created_at`;
  return {
    put: (s) => bounded(pg, "sso write", async () => void (await upsert(sql, s))),
    get: (projectId) => bounded(pg, "sso read", async () => {
      const [row] = await sql`SELECT * FROM project_sso WHERE project_id = ${projectId}`;
      return row ? fromRow(row) : null;
    }),
    delete: (projectId) => bounded(pg, "sso delete", async () => (await sql`DELETE FROM project_sso WHERE project_id = ${projectId} RETURNING 1`).length > 0),
    findByDomain: (domain) => bounded(pg, "sso domain", async () => {
      const [row] = await sql`SELECT * FROM project_sso WHERE EXISTS (
          SELECT 1 FROM jsonb_array_elements_text(allowed_domains::jsonb) AS d WHERE lower(d) = ${domain.toLowerCase()})
        ORDER BY created_at, project_id LIMIT 1`;
      return row ? fromRow(row) : null;
    }),
    all: () => bounded(pg, "sso clients", async () => (await sql`SELECT * FROM project_sso ORDER BY created_at, project_id`).map(fromRow)),
    putUnlessClaimed: (s) => bounded(pg, "sso write", () => sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${SSO_WRITE_LOCK})`;
      const wanted = s.allowedDomains.map((d) => d.toLowerCase());
      const claimed: Array<{ domain: string }> = await tx`SELECT DISTINCT lower(d) AS domain
        FROM project_sso, jsonb_array_elements_text(allowed_domains::jsonb) AS d
        WHERE project_id <> ${s.projectId} AND lower(d) IN (SELECT jsonb_array_elements_text(${JSON.stringify(wanted)}::text::jsonb))`;
      const taken = new Set(claimed.map((c) => c.domain));
      const domain = wanted.find((d) => taken.has(d));
      if (domain !== undefined) return { ok: false as const, domain };
      const [row] = await upsert(tx, s);
      return { ok: true as const, stored: { ...s, createdAt: Number(row?.created_at ?? s.createdAt) } };
    })),
  };
}

const same = (a: StoredSso, b: StoredSso): boolean => JSON.stringify(a) === JSON.stringify(b);

/** This instance's SQLite copy of PostgreSQL's clients: the rows that differ written, the ones gone
 * deleted; returns how many changed. */
export async function mirrorSsoClients(store: Pick<PostgresSsoStore, "all">, local: ProjectSsoRepo): Promise<number> {
  const shared = await store.all();
  const held = new Map(local.all().map((s) => [s.projectId, s]));
  let changed = 0;
  for (const s of shared) {
    const mine = held.get(s.projectId);
    held.delete(s.projectId);
    if (mine && same(mine, s)) continue;
    local.put(s);
    changed++;
  }
  for (const gone of held.keys()) changed += local.delete(gone) ? 1 : 0;
  return changed;
}

/** mirrorSsoClients now and every `intervalMs`; a failure is said once until a read succeeds. */
export function followSsoClients(store: Pick<PostgresSsoStore, "all">, local: ProjectSsoRepo, options: { intervalMs?: number; onError: (err: unknown) => void }): { stop(): void } {
  let failing = false;
  let running = false;
  let stopped = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await mirrorSsoClients(store, local);
      failing = false;
    } catch (err) {
      if (!failing && !stopped) options.onError(err);
      failing = true;
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(tick, options.intervalMs ?? SSO_MIRROR_MS);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
