// Dashboard sessions on PostgreSQL (docs/scale-out.md "Dashboard and audit log"): the table of
// 001_core.sql, so a sign-in on one instance holds on every other and a sign-out ends it everywhere.
import type { KeyScope } from "../../config/constants.ts";
import { parseStored } from "../../lib/json.ts";
import type { DashboardSessionStore, StoredSession } from "../repos/dashboard-sessions.ts";
import { bounded, type Postgres } from "./connect.ts";

type Row = Record<string, unknown>;
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const sessionOf = (r: Row): StoredSession => ({
  tokenHash: String(r.token_hash), id: String(r.id), role: r.role === "operator" ? "operator" : "project",
  projectId: strOrNull(r.project_id), keyId: strOrNull(r.key_id), scopes: parseStored<KeyScope[]>(String(r.scopes), []),
  email: strOrNull(r.email), csrfToken: String(r.csrf_token), createdAt: Number(r.created_at), expiresAt: Number(r.expires_at),
});

export function postgresDashboardSessions(pg: Postgres): DashboardSessionStore {
  const { sql } = pg;
  return {
    insert: (s) => bounded(pg, "dashboard session insert", async () => {
      await sql`INSERT INTO dashboard_sessions (token_hash, id, role, project_id, key_id, scopes, email, csrf_token, created_at, expires_at)
        VALUES (${s.tokenHash}, ${s.id}, ${s.role}, ${s.projectId}, ${s.keyId}, ${JSON.stringify(s.scopes)}, ${s.email}, ${s.csrfToken}, ${s.createdAt}, ${s.expiresAt})`;
    }),
    get: (tokenHash) => bounded(pg, "dashboard session read", async () => {
      const [row]: Row[] = await sql`SELECT * FROM dashboard_sessions WHERE token_hash = ${tokenHash}`;
      return row ? sessionOf(row) : null;
    }),
    delete: (tokenHash) => bounded(pg, "dashboard session delete", async () => {
      await sql`DELETE FROM dashboard_sessions WHERE token_hash = ${tokenHash}`;
    }),
    deleteExpired: (now) => bounded(pg, "dashboard session expiry", async () => {
      const rows: Row[] = await sql`DELETE FROM dashboard_sessions WHERE expires_at <= ${now} RETURNING token_hash`;
      return rows.length;
    }),
  };
}
