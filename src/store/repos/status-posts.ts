// The status page's operator posts (migration 012; docs/monitoring.md "Status page"): incidents and
// maintenance windows with their updates. Not project data: no read takes a project.
import type { Database } from "bun:sqlite";
import { parseStored } from "../../lib/json.ts";

export interface StatusPostRow {
  id: string;
  kind: "incident" | "maintenance";
  name: string;
  status: string;
  impact: string;
  components: string[];
  scheduledFor: number | null;
  scheduledUntil: number | null;
  monitoringAt: number | null;
  resolvedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface StatusUpdateRow { id: string; postId: string; status: string; body: string; createdAt: number }

interface Row {
  id: string; kind: "incident" | "maintenance"; name: string; status: string; impact: string; components: string;
  scheduled_for: number | null; scheduled_until: number | null; monitoring_at: number | null; resolved_at: number | null;
  created_at: number; updated_at: number;
}
interface UpdateRow { id: string; post_id: string; status: string; body: string; created_at: number }

const fromRow = (r: Row): StatusPostRow => ({
  id: r.id, kind: r.kind, name: r.name, status: r.status, impact: r.impact, components: parseStored<string[]>(r.components, []),
  scheduledFor: r.scheduled_for, scheduledUntil: r.scheduled_until, monitoringAt: r.monitoring_at, resolvedAt: r.resolved_at,
  createdAt: r.created_at, updatedAt: r.updated_at,
});
const fromUpdate = (u: UpdateRow): StatusUpdateRow => ({ id: u.id, postId: u.post_id, status: u.status, body: u.body, createdAt: u.created_at });

type Values = [string, string, string, string, string, string, number | null, number | null, number | null, number | null, number, number];
const valuesOf = (p: StatusPostRow): Values => [
  p.kind, p.name, p.status, p.impact, JSON.stringify(p.components), p.id, p.scheduledFor, p.scheduledUntil, p.monitoringAt,
  p.resolvedAt, p.createdAt, p.updatedAt,
];
const COLS = "kind, name, status, impact, components, id, scheduled_for, scheduled_until, monitoring_at, resolved_at, created_at, updated_at";

export function statusPostsRepo(db: Database) {
  const insert = db.query<unknown, Values>(`INSERT INTO status_posts (${COLS}) VALUES (${Array(12).fill("?").join(", ")})`);
  const replace = db.query<unknown, Values>(`INSERT OR REPLACE INTO status_posts (${COLS}) VALUES (${Array(12).fill("?").join(", ")})`);
  const byId = db.query<Row, [string]>("SELECT * FROM status_posts WHERE id = ?");
  // Ids are a kind prefix then a time-sortable part: pages sort by that part, newest first.
  const page = db.query<Row, [string, number]>(
    "SELECT * FROM status_posts WHERE substr(id, 5) < ? ORDER BY substr(id, 5) DESC LIMIT ?",
  );
  // What the page shows: incidents unresolved or resolved since `since`, windows not yet over.
  const shown = db.query<Row, [number, number]>(
    `SELECT * FROM status_posts WHERE (kind = 'incident' AND (resolved_at IS NULL OR resolved_at >= ?))
       OR (kind = 'maintenance' AND resolved_at IS NULL AND scheduled_until > ?)`,
  );
  const updatesOf = db.query<UpdateRow, [string]>("SELECT * FROM status_updates WHERE post_id = ? ORDER BY created_at DESC, id DESC");
  const insertUpdate = db.query<unknown, [string, string, string, string, number]>(
    "INSERT INTO status_updates (id, post_id, status, body, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const deletePost = db.query<unknown, [string]>("DELETE FROM status_posts WHERE id = ?");
  const deleteUpdates = db.query<unknown, [string]>("DELETE FROM status_updates WHERE post_id = ?");

  return {
    /** A new post with its first update, in one transaction. */
    create: db.transaction((p: StatusPostRow, first: StatusUpdateRow) => {
      insert.run(...valuesOf(p));
      insertUpdate.run(first.id, p.id, first.status, first.body, first.createdAt);
    }),
    /** Writes the post's fields, and an update beside them when given. */
    save: db.transaction((p: StatusPostRow, update: StatusUpdateRow | null) => {
      replace.run(...valuesOf(p));
      if (update) insertUpdate.run(update.id, p.id, update.status, update.body, update.createdAt);
    }),
    get(id: string): StatusPostRow | null {
      const r = byId.get(id);
      return r ? fromRow(r) : null;
    },
    updates(postId: string): StatusUpdateRow[] {
      return updatesOf.all(postId).map(fromUpdate);
    },
    /** Newest first; `after` is the last id of the previous page. */
    page(limit: number, after?: string): StatusPostRow[] {
      return page.all(after === undefined ? "\uffff" : after.slice(4), limit).map(fromRow);
    },
    shown(resolvedSince: number, now: number): StatusPostRow[] {
      return shown.all(resolvedSince, now).map(fromRow);
    },
    remove: db.transaction((id: string): boolean => {
      deleteUpdates.run(id);
      return deletePost.run(id).changes === 1;
    }),
  };
}

export type StatusPostsRepo = ReturnType<typeof statusPostsRepo>;

/** The posts on SQLite or PostgreSQL (src/store/postgres/status.ts); one contract
 * (test/store/contract/status-posts.contract.ts). */
export interface StatusPostsStore {
  create(p: StatusPostRow, first: StatusUpdateRow): Promise<void>;
  save(p: StatusPostRow, update: StatusUpdateRow | null): Promise<void>;
  get(id: string): Promise<StatusPostRow | null>;
  updates(postId: string): Promise<StatusUpdateRow[]>;
  /** The updates of several posts at once, by post id (newest first each). */
  updatesOf(postIds: readonly string[]): Promise<Map<string, StatusUpdateRow[]>>;
  page(limit: number, after?: string): Promise<StatusPostRow[]>;
  shown(resolvedSince: number, now: number): Promise<StatusPostRow[]>;
  remove(id: string): Promise<boolean>;
}

export const sqliteStatusPostsStore = (repo: StatusPostsRepo): StatusPostsStore => ({
  create: async (p, first) => repo.create(p, first),
  save: async (p, update) => repo.save(p, update),
  get: async (id) => repo.get(id),
  updates: async (postId) => repo.updates(postId),
  updatesOf: async (postIds) => new Map(postIds.map((id) => [id, repo.updates(id)])),
  page: async (limit, after) => repo.page(limit, after),
  shown: async (since, now) => repo.shown(since, now),
  remove: async (id) => repo.remove(id),
});
