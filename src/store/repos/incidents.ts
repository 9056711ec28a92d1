// Incidents opened by alert rules (migration 012): at most one open per rule (a unique index), listed
// newest first by id (ids sort by creation time) with an id cursor. Built-in rules' have no project.
import type { Database } from "bun:sqlite";

export interface IncidentRow {
  id: string;
  projectId: string | null;
  ruleId: string;
  ruleName: string;
  component: string | null;
  severity: string;
  metric: string;
  threshold: number;
  window: string;
  status: "opened" | "resolved";
  openedAt: number;
  resolvedAt: number | null;
  peakValue: number | null;
  lastValue: number | null;
}

interface Row {
  id: string; project_id: string | null; rule_id: string; rule_name: string; component: string | null;
  severity: string; metric: string; threshold: number; window: string; status: string; opened_at: number;
  resolved_at: number | null; peak_value: number | null; last_value: number | null;
}

const fromRow = (r: Row): IncidentRow => ({
  id: r.id, projectId: r.project_id, ruleId: r.rule_id, ruleName: r.rule_name, component: r.component,
  severity: r.severity, metric: r.metric, threshold: r.threshold, window: r.window,
  status: r.status === "resolved" ? "resolved" : "opened", openedAt: r.opened_at, resolvedAt: r.resolved_at,
  peakValue: r.peak_value, lastValue: r.last_value,
});

export interface IncidentQuery {
  projectId: string;
  status?: "opened" | "resolved";
  /** Incidents older than this id (the previous page's last id). */
  after?: string;
  limit: number;
}

export type IncidentValues = { peak: number | null; last: number | null };
type Values = IncidentValues;

export function incidentsRepo(db: Database) {
  // OR IGNORE: a second open incident for a rule is refused by the unique index, not an error.
  const insert = db.query<unknown, [string, string | null, string, string, string | null, string, string, number, string, number, number | null, number | null]>(
    `INSERT OR IGNORE INTO incidents (id, project_id, rule_id, rule_name, component, severity, metric, threshold, window, status, opened_at, peak_value, last_value)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'opened', ?, ?, ?)`,
  );
  const openOf = db.query<Row, [string]>("SELECT * FROM incidents WHERE rule_id = ? AND status = 'opened'");
  const resolve = db.query<unknown, [number, number | null, number | null, string]>(
    "UPDATE incidents SET status = 'resolved', resolved_at = ?, peak_value = ?, last_value = ? WHERE rule_id = ? AND status = 'opened'",
  );
  const values = db.query<unknown, [number | null, number | null, string]>(
    "UPDATE incidents SET peak_value = ?, last_value = ? WHERE rule_id = ? AND status = 'opened'",
  );
  // '~' sorts after every id character, so "no cursor" is one statement per shape.
  const page = db.query<Row, [string, string, number]>(
    "SELECT * FROM incidents WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
  );
  const pageByStatus = db.query<Row, [string, string, string, number]>(
    "SELECT * FROM incidents WHERE project_id = ? AND status = ? AND id < ? ORDER BY id DESC LIMIT ?",
  );
  const builtIn = db.query<Row, [number]>(
    "SELECT * FROM incidents WHERE project_id IS NULL AND (resolved_at IS NULL OR resolved_at >= ?) ORDER BY id DESC LIMIT 200",
  );

  return {
    /** The new incident, or null when the rule already has an open one. */
    open(i: Omit<IncidentRow, "status" | "resolvedAt">): IncidentRow | null {
      const changes = insert.run(i.id, i.projectId, i.ruleId, i.ruleName, i.component, i.severity, i.metric, i.threshold, i.window, i.openedAt, i.peakValue, i.lastValue).changes;
      return changes > 0 ? { ...i, status: "opened", resolvedAt: null } : null;
    },
    openOf: (ruleId: string): IncidentRow | null => {
      const r = openOf.get(ruleId);
      return r ? fromRow(r) : null;
    },
    /** Resolves the rule's open incident; the resolved row, or null when none was open. */
    resolve(ruleId: string, at: number, v: Values): IncidentRow | null {
      const open = openOf.get(ruleId);
      if (!open || resolve.run(at, v.peak, v.last, ruleId).changes === 0) return null;
      return { ...fromRow(open), status: "resolved", resolvedAt: at, peakValue: v.peak, lastValue: v.last };
    },
    /** The open incident's peak and last value, kept current while it fires. */
    setValues: (ruleId: string, v: Values): void => void values.run(v.peak, v.last, ruleId),
    list(q: IncidentQuery): IncidentRow[] {
      const before = q.after ?? "~";
      const rows = q.status ? pageByStatus.all(q.projectId, q.status, before, q.limit) : page.all(q.projectId, before, q.limit);
      return rows.map(fromRow);
    },
    /** Built-in rules' incidents open now or resolved since `since` (the status page's). */
    builtInSince: (since: number): IncidentRow[] => builtIn.all(since).map(fromRow),
  };
}

export type IncidentsRepo = ReturnType<typeof incidentsRepo>;

/** Incidents on SQLite or PostgreSQL (src/store/postgres/alerts.ts); one contract
 * (test/store/contract/alert-store.contract.ts). */
export interface IncidentsStore {
  open(i: Omit<IncidentRow, "status" | "resolvedAt">): Promise<IncidentRow | null>;
  openOf(ruleId: string): Promise<IncidentRow | null>;
  resolve(ruleId: string, at: number, v: IncidentValues): Promise<IncidentRow | null>;
  setValues(ruleId: string, v: IncidentValues): Promise<void>;
  list(q: IncidentQuery): Promise<IncidentRow[]>;
  builtInSince(since: number): Promise<IncidentRow[]>;
}

export const sqliteIncidentsStore = (repo: IncidentsRepo): IncidentsStore => ({
  open: async (i) => repo.open(i),
  openOf: async (ruleId) => repo.openOf(ruleId),
  resolve: async (ruleId, at, v) => repo.resolve(ruleId, at, v),
  setValues: async (ruleId, v) => repo.setValues(ruleId, v),
  list: async (q) => repo.list(q),
  builtInSince: async (since) => repo.builtInSince(since),
});
