// The audit log's table (migration 010): append-only, the triggers refuse UPDATE and DELETE.
// Listed newest first by id (ids sort by creation time), with an id cursor.
import type { Database } from "bun:sqlite";

export interface AuditRow {
  id: string;
  createdAt: number;
  actorType: string;
  actorId: string | null;
  actorEmail: string | null;
  sourceIp: string | null;
  action: string;
  projectId: string | null;
  target: string | null;
  outcome: "success" | "failure";
  status: number | null;
  details: Record<string, unknown>;
}

interface Row {
  id: string; created_at: number; actor_type: string; actor_id: string | null; actor_email: string | null;
  source_ip: string | null; action: string; project_id: string | null; target: string | null;
  outcome: string; status: number | null; details: string;
}

const fromRow = (r: Row): AuditRow => ({
  id: r.id, createdAt: r.created_at, actorType: r.actor_type, actorId: r.actor_id, actorEmail: r.actor_email,
  sourceIp: r.source_ip, action: r.action, projectId: r.project_id, target: r.target,
  outcome: r.outcome === "failure" ? "failure" : "success", status: r.status, details: JSON.parse(r.details) as Record<string, unknown>,
});

export interface AuditQuery {
  /** Only this project's entries; undefined for every entry. */
  projectId?: string;
  /** Entries older than this id (the previous page's last id). */
  after?: string;
  limit: number;
}

/** Both stores' shape: SQLite answers at once (single-node writes before it answers, synchronously),
 * PostgreSQL's (src/store/postgres/audit-log.ts, the multi-instance mode) with promises. */
export interface AuditStore {
  insert(e: AuditRow): void | Promise<void>;
  list(q: AuditQuery): AuditRow[] | Promise<AuditRow[]>;
}

export function auditLogRepo(db: Database) {
  const insert = db.query<unknown, [string, number, string, string | null, string | null, string | null, string, string | null, string | null, string, number | null, string]>(
    `INSERT INTO audit_log (id, created_at, actor_type, actor_id, actor_email, source_ip, action, project_id, target, outcome, status, details)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // '~' sorts after every id character, so "no cursor" is one statement per shape.
  const all = db.query<Row, [string, number]>("SELECT * FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?");
  const byProject = db.query<Row, [string, string, number]>("SELECT * FROM audit_log WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?");
  return {
    insert(e: AuditRow): void {
      insert.run(e.id, e.createdAt, e.actorType, e.actorId, e.actorEmail, e.sourceIp, e.action, e.projectId, e.target, e.outcome, e.status, JSON.stringify(e.details));
    },
    list(q: AuditQuery): AuditRow[] {
      const before = q.after ?? "~";
      const rows = q.projectId === undefined ? all.all(before, q.limit) : byProject.all(q.projectId, before, q.limit);
      return rows.map(fromRow);
    },
  };
}

export type AuditLogRepo = ReturnType<typeof auditLogRepo>;
