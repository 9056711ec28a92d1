// Per-project OpenID Connect clients (migration 010); the client secret is stored sealed.
import type { Database } from "bun:sqlite";
import { parseStored } from "../../lib/json.ts";

export interface StoredSso {
  projectId: string;
  issuer: string;
  clientId: string;
  sealedSecret: string;
  allowedDomains: string[];
  createdAt: number;
  updatedAt: number;
}

interface Row {
  project_id: string; issuer: string; client_id: string; client_secret: string; allowed_domains: string;
  created_at: number; updated_at: number;
}

const fromRow = (r: Row): StoredSso => ({
  projectId: r.project_id, issuer: r.issuer, clientId: r.client_id, sealedSecret: r.client_secret,
  allowedDomains: parseStored<string[]>(r.allowed_domains, []), createdAt: r.created_at, updatedAt: r.updated_at,
});

export function projectSsoRepo(db: Database) {
  const upsert = db.query<unknown, [string, string, string, string, string, number, number]>(
    `INSERT INTO project_sso (project_id, issuer, client_id, client_secret, allowed_domains, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET issuer = excluded.issuer, client_id = excluded.client_id,
       client_secret = excluded.client_secret, allowed_domains = excluded.allowed_domains, updated_at = excluded.updated_at`,
  );
  const byProject = db.query<Row, [string]>("SELECT * FROM project_sso WHERE project_id = ?");
  const remove = db.query<unknown, [string]>("DELETE FROM project_sso WHERE project_id = ?");
  const everyClient = db.query<Row, []>("SELECT * FROM project_sso ORDER BY created_at, project_id");
  return {
    put(s: StoredSso): void {
      upsert.run(s.projectId, s.issuer, s.clientId, s.sealedSecret, JSON.stringify(s.allowedDomains), s.createdAt, s.updatedAt);
    },
    get(projectId: string): StoredSso | null {
      const row = byProject.get(projectId);
      return row ? fromRow(row) : null;
    },
    /** True when there was one to delete. */
    delete(projectId: string): boolean {
      return remove.run(projectId).changes > 0;
    },
    /** Every client, oldest first (the multi-instance mode's mirror compares them with PostgreSQL's). */
    all(): StoredSso[] {
      return everyClient.all().map(fromRow);
    },
    /** The client whose allowed domains hold `domain` (oldest first when two claim it). */
    findByDomain(domain: string): StoredSso | null {
      const d = domain.toLowerCase();
      for (const row of everyClient.all()) {
        const s = fromRow(row);
        if (s.allowedDomains.some((a) => a.toLowerCase() === d)) return s;
      }
      return null;
    },
  };
}

export type ProjectSsoRepo = ReturnType<typeof projectSsoRepo>;

/** SSO clients behind one interface (docs/scale-out.md): this repo on one node (its calls answer at
 * once), PostgreSQL's project_sso with the instances (src/store/postgres/sso.ts). */
export interface ProjectSsoStore {
  put(s: StoredSso): void | Promise<void>;
  get(projectId: string): StoredSso | null | Promise<StoredSso | null>;
  delete(projectId: string): boolean | Promise<boolean>;
  findByDomain(domain: string): StoredSso | null | Promise<StoredSso | null>;
  all(): StoredSso[] | Promise<StoredSso[]>;
}
