// Alert rules (migration 012): the rule JSON and its state JSON, stored after each evaluation so a
// restart keeps it. Deleting sets deleted_at; every read but projectOf leaves such rows out.
import type { Database } from "bun:sqlite";
import { requestIdAt } from "../../lib/ids.ts";
import { COLUMNS, type SqlValue } from "../log-batch-codec.ts";

export interface StoredAlertRule {
  id: string;
  projectId: string;
  /** The AlertRule JSON, defaults filled in. */
  rule: string;
  /** The AlertState JSON, null before the first evaluation. */
  state: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string; project_id: string; rule: string; state: string | null; created_at: number; updated_at: number;
}

const fromRow = (r: Row): StoredAlertRule => ({
  id: r.id, projectId: r.project_id, rule: r.rule, state: r.state, createdAt: r.created_at, updatedAt: r.updated_at,
});

const COLS = "id, project_id, rule, state, created_at, updated_at";

export function alertRulesRepo(db: Database) {
  const insert = db.query<unknown, [string, string, string, number, number]>(
    "INSERT INTO alert_rules (id, project_id, rule, state, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?)",
  );
  const byId = db.query<Row, [string]>(`SELECT ${COLS} FROM alert_rules WHERE id = ? AND deleted_at IS NULL`);
  const byProject = db.query<Row, [string]>(
    `SELECT ${COLS} FROM alert_rules WHERE project_id = ? AND deleted_at IS NULL ORDER BY created_at, id`,
  );
  const live = db.query<Row, []>(`SELECT ${COLS} FROM alert_rules WHERE deleted_at IS NULL ORDER BY id`);
  const projectOf = db.query<{ project_id: string }, [string]>("SELECT project_id FROM alert_rules WHERE id = ?");
  const setRule = db.query<unknown, [string, string | null, number, string]>(
    "UPDATE alert_rules SET rule = ?, state = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL",
  );
  const setState = db.query<unknown, [string, string]>("UPDATE alert_rules SET state = ? WHERE id = ? AND deleted_at IS NULL");
  const setStateIf = db.query<unknown, [string, string, number]>("UPDATE alert_rules SET state = ? WHERE id = ? AND updated_at = ? AND deleted_at IS NULL");
  const remove = db.query<unknown, [number, string]>("UPDATE alert_rules SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL");
  // The primary key (project_id, id) serves it: ids sort by creation time.
  const recent = db.query<SqlValue[], [string, string, number, number]>(
    `SELECT ${COLUMNS.join(", ")} FROM requests WHERE project_id = ? AND id >= ? AND created_at >= ? ORDER BY id DESC LIMIT ?`,
  );

  return {
    insert(r: { id: string; projectId: string; rule: string; now: number }): void {
      insert.run(r.id, r.projectId, r.rule, r.now, r.now);
    },
    get: (id: string): StoredAlertRule | null => {
      const r = byId.get(id);
      return r ? fromRow(r) : null;
    },
    list: (projectId: string): StoredAlertRule[] => byProject.all(projectId).map(fromRow),
    /** Every rule not deleted, of every project (the evaluator's pass). */
    all: (): StoredAlertRule[] => live.all().map(fromRow),
    /** The project of a rule, deleted or not (the audit entry of a DELETE names it). */
    projectOf: (id: string): string | null => projectOf.get(id)?.project_id ?? null,
    /** A changed rule; `state` null starts it over (a new metric or threshold). */
    update: (id: string, rule: string, state: string | null, now: number): boolean => setRule.run(rule, state, now, id).changes > 0,
    /** With `updatedAt`, only while the rule is unchanged since it was read (an evaluation's state
     * never overwrites a PATCH made meanwhile). */
    setState: (id: string, state: string, updatedAt?: number): boolean =>
      (updatedAt === undefined ? setState.run(state, id) : setStateIf.run(state, id, updatedAt)).changes > 0,
    remove: (id: string, now: number): boolean => remove.run(now, id).changes > 0,
    /** A project's newest request-log rows created from `from` on, as insert values (COLUMNS
     * order): what a scoped rule's totals are backfilled from. */
    recentRequests: (projectId: string, from: number, limit: number): SqlValue[][] =>
      recent.values(projectId, requestIdAt(from), from, limit) as SqlValue[][],
  };
}

export type AlertRulesRepo = ReturnType<typeof alertRulesRepo>;

/** The rules as the admin API and the evaluator use them, on SQLite or PostgreSQL
 * (src/store/postgres/alerts.ts); one contract (test/store/contract/alert-store.contract.ts). */
export interface AlertRulesStore {
  insert(r: { id: string; projectId: string; rule: string; now: number }): Promise<void>;
  get(id: string): Promise<StoredAlertRule | null>;
  list(projectId: string): Promise<StoredAlertRule[]>;
  all(): Promise<StoredAlertRule[]>;
  projectOf(id: string): Promise<string | null>;
  update(id: string, rule: string, state: string | null, now: number): Promise<boolean>;
  /** Whether it was written (false: deleted, or changed since `updatedAt`). */
  setState(id: string, state: string, updatedAt?: number): Promise<boolean>;
  remove(id: string, now: number): Promise<boolean>;
}

export const sqliteAlertRulesStore = (repo: AlertRulesRepo): AlertRulesStore => ({
  insert: async (r) => repo.insert(r),
  get: async (id) => repo.get(id),
  list: async (projectId) => repo.list(projectId),
  all: async () => repo.all(),
  projectOf: async (id) => repo.projectOf(id),
  update: async (id, rule, state, now) => repo.update(id, rule, state, now),
  setState: async (id, state, updatedAt) => repo.setState(id, state, updatedAt),
  remove: async (id, now) => repo.remove(id, now),
});
