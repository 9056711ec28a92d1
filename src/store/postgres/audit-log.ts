// The audit log on PostgreSQL (docs/scale-out.md "Dashboard and audit log"): the append-only table of
// 001_core.sql, one for every instance, listed newest first by id with the same cursor as SQLite's.
import { parseStored } from "../../lib/json.ts";
import type { AuditRow, AuditStore } from "../repos/audit-log.ts";
import { bounded, type Postgres } from "./connect.ts";

type Row = Record<string, unknown>;
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const entryOf = (r: Row): AuditRow => ({
  id: String(r.id), createdAt: Number(r.created_at), actorType: String(r.actor_type), actorId: strOrNull(r.actor_id),
  actorEmail: strOrNull(r.actor_email), sourceIp: strOrNull(r.source_ip), action: String(r.action), projectId: strOrNull(r.project_id),
  target: strOrNull(r.target), outcome: r.outcome === "failure" ? "failure" : "success", status: r.status === null || r.status === undefined ? null : Number(r.status),
  details: parseStored<Record<string, unknown>>(String(r.details), {}),
});

export function postgresAuditLog(pg: Postgres): AuditStore {
  const { sql } = pg;
  return {
    insert: (e) => bounded(pg, "audit log write", async () => {
      await sql`INSERT INTO audit_log (id, created_at, actor_type, actor_id, actor_email, source_ip, action, project_id, target, outcome, status, details)
        VALUES (${e.id}, ${e.createdAt}, ${e.actorType}, ${e.actorId}, ${e.actorEmail}, ${e.sourceIp}, ${e.action}, ${e.projectId}, ${e.target},
        ${e.outcome}, ${e.status}, ${JSON.stringify(e.details)})`;
    }),
    list: (q) => bounded(pg, "audit log read", async () => {
      // Without a cursor, no bound: '~' would not sort last under every collation. Ids are one
      // length and [0-9a-z], so any collation orders them as SQLite does.
      const { projectId: p, after, limit } = q;
      const rows: Row[] = p === undefined
        ? after === undefined ? await sql`SELECT * FROM audit_log ORDER BY id DESC LIMIT ${limit}` : await sql`SELECT * FROM audit_log WHERE id < ${after} ORDER BY id DESC LIMIT ${limit}`
        : after === undefined
          ? await sql`SELECT * FROM audit_log WHERE project_id = ${p} ORDER BY id DESC LIMIT ${limit}`
          : await sql`SELECT * FROM audit_log WHERE project_id = ${p} AND id < ${after} ORDER BY id DESC LIMIT ${limit}`;
      return rows.map(entryOf);
    }),
  };
}
