// Webhook endpoints (migration 012): a project's receivers, their sealed secrets and failure state.
// Deleting or disabling an endpoint drops its queued deliveries in the same transaction.
import type { Database } from "bun:sqlite";

export interface StoredEndpoint {
  id: string;
  projectId: string;
  url: string;
  /** null: every event type, including types added later. */
  events: string[] | null;
  description: string | null;
  enabled: boolean;
  sealedSecret: string;
  sealedPreviousSecret: string | null;
  rotatedAt: number | null;
  failingSince: number | null;
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  project_id: string;
  url: string;
  events: string | null;
  description: string | null;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  rotated_at: number | null;
  failing_since: number | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

const fromRow = (r: Row): StoredEndpoint => ({
  id: r.id,
  projectId: r.project_id,
  url: r.url,
  events: r.events === null ? null : (JSON.parse(r.events) as string[]),
  description: r.description,
  enabled: r.enabled === 1,
  sealedSecret: r.secret,
  sealedPreviousSecret: r.previous_secret,
  rotatedAt: r.rotated_at,
  failingSince: r.failing_since,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function webhookEndpointsRepo(db: Database) {
  const byId = db.query<Row, [string]>("SELECT * FROM webhook_endpoints WHERE id = ?");
  const byProject = db.query<Row, [string]>("SELECT * FROM webhook_endpoints WHERE project_id = ? ORDER BY created_at, id");
  const dropQueue = db.query<unknown, [string]>("DELETE FROM webhook_queue WHERE endpoint_id = ?");

  const remove = db.transaction((id: string): boolean => {
    dropQueue.run(id);
    return db.run("DELETE FROM webhook_endpoints WHERE id = ?", [id]).changes > 0;
  });
  /** Turns an endpoint off (reason null: by an operator) and drops what was queued for it. */
  const disable = db.transaction((id: string, reason: string | null, failingSince: number | null, now: number): void => {
    db.run("UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, failing_since = ?, updated_at = ? WHERE id = ?", [reason, failingSince, now, id]);
    dropQueue.run(id);
  });

  return {
    insert(e: StoredEndpoint): void {
      db.run(
        `INSERT INTO webhook_endpoints (id, project_id, url, events, description, enabled, secret, previous_secret, rotated_at,
           failing_since, disabled_reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [e.id, e.projectId, e.url, e.events === null ? null : JSON.stringify(e.events), e.description, e.enabled ? 1 : 0, e.sealedSecret,
          e.sealedPreviousSecret, e.rotatedAt, e.failingSince, e.disabledReason, e.createdAt, e.updatedAt],
      );
    },
    get(id: string): StoredEndpoint | null {
      const r = byId.get(id);
      return r ? fromRow(r) : null;
    },
    list(projectId: string): StoredEndpoint[] {
      return byProject.all(projectId).map(fromRow);
    },
    /** Operator changes (url, events, description, enabled); enabling clears the failure state. */
    update(id: string, patch: { url?: string; events?: string[] | null; description?: string | null; enabled?: boolean }, now: number): void {
      const current = byId.get(id);
      if (!current) return;
      if (patch.enabled === false && current.enabled === 1) disable(id, null, current.failing_since, now);
      db.run(
        `UPDATE webhook_endpoints SET url = ?, events = ?, description = ?, updated_at = ?${patch.enabled === true ? ", enabled = 1, failing_since = NULL, disabled_reason = NULL" : ""} WHERE id = ?`,
        [patch.url ?? current.url, patch.events === undefined ? current.events : patch.events === null ? null : JSON.stringify(patch.events),
          patch.description === undefined ? current.description : patch.description, now, id],
      );
    },
    remove: (id: string): boolean => remove.immediate(id),
    disable: (id: string, reason: string | null, failingSince: number | null, now: number): void => disable.immediate(id, reason, failingSince, now),
    rotate(id: string, sealedSecret: string, sealedPrevious: string, now: number): void {
      db.run("UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, rotated_at = ?, updated_at = ? WHERE id = ?", [sealedSecret, sealedPrevious, now, now, id]);
    },
    /** A failed attempt: the endpoint is failing since `at` unless it already was. */
    markFailing(id: string, at: number): void {
      db.run("UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?) WHERE id = ?", [at, id]);
    },
    markHealthy(id: string): void {
      db.run("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL", [id]);
    },
  };
}

export type WebhookEndpointsRepo = ReturnType<typeof webhookEndpointsRepo>;
