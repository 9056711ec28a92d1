// Dashboard sign-in sessions (migration 010): keyed by the SHA-256 of the cookie's id, so an
// acknowledged sign-in survives a restart and a copy of the database signs nobody in.
import type { Database } from "bun:sqlite";
import type { KeyScope } from "../../config/constants.ts";
import { parseStored } from "../../lib/json.ts";

export interface StoredSession {
  tokenHash: string;
  id: string;
  role: "operator" | "project";
  projectId: string | null;
  keyId: string | null;
  scopes: KeyScope[];
  email: string | null;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

/** Both stores' shape: SQLite answers at once (single-node stays synchronous), PostgreSQL's
 * (src/store/postgres/dashboard-sessions.ts, the multi-instance mode) with promises. */
export interface DashboardSessionStore {
  insert(s: StoredSession): void | Promise<void>;
  get(tokenHash: string): StoredSession | null | Promise<StoredSession | null>;
  delete(tokenHash: string): void | Promise<void>;
  deleteExpired(now: number): number | Promise<number>;
}

interface Row {
  token_hash: string; id: string; role: string; project_id: string | null; key_id: string | null;
  scopes: string; email: string | null; csrf_token: string; created_at: number; expires_at: number;
}

const fromRow = (r: Row): StoredSession => ({
  tokenHash: r.token_hash, id: r.id, role: r.role === "operator" ? "operator" : "project", projectId: r.project_id,
  keyId: r.key_id, scopes: parseStored<KeyScope[]>(r.scopes, []), email: r.email, csrfToken: r.csrf_token,
  createdAt: r.created_at, expiresAt: r.expires_at,
});

export function dashboardSessionsRepo(db: Database) {
  const insert = db.query<unknown, [string, string, string, string | null, string | null, string, string | null, string, number, number]>(
    `INSERT INTO dashboard_sessions (token_hash, id, role, project_id, key_id, scopes, email, csrf_token, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const byHash = db.query<Row, [string]>("SELECT * FROM dashboard_sessions WHERE token_hash = ?");
  const remove = db.query<unknown, [string]>("DELETE FROM dashboard_sessions WHERE token_hash = ?");
  const expire = db.query<unknown, [number]>("DELETE FROM dashboard_sessions WHERE expires_at <= ?");
  return {
    insert(s: StoredSession): void {
      insert.run(s.tokenHash, s.id, s.role, s.projectId, s.keyId, JSON.stringify(s.scopes), s.email, s.csrfToken, s.createdAt, s.expiresAt);
    },
    get(tokenHash: string): StoredSession | null {
      const row = byHash.get(tokenHash);
      return row ? fromRow(row) : null;
    },
    delete(tokenHash: string): void {
      remove.run(tokenHash);
    },
    /** Drops sessions past their expiry; returns how many. */
    deleteExpired(now: number): number {
      return expire.run(now).changes;
    },
  };
}

export type DashboardSessionsRepo = ReturnType<typeof dashboardSessionsRepo>;
