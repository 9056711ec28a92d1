// The webhook delivery queue and the record of attempts (migration 012): due rows are read in
// order, each attempt is one deliveries row, and the queue row moves on or goes.
import type { Database } from "bun:sqlite";

export interface QueueRow {
  eventId: string;
  endpointId: string;
  /** The number the next attempt carries (1 for the first). */
  attempt: number;
  nextAttemptAt: number;
}

export interface StoredDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  eventType: string;
  attempt: number;
  createdAt: number;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  event_type: string;
  attempt: number;
  created_at: number;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

const fromRow = (r: DeliveryRow): StoredDelivery => ({
  id: r.id,
  eventId: r.event_id,
  endpointId: r.endpoint_id,
  eventType: r.event_type,
  attempt: r.attempt,
  createdAt: r.created_at,
  durationMs: r.duration_ms,
  statusCode: r.status_code,
  error: r.error,
  responseExcerpt: r.response_excerpt,
});

export function webhookDeliveriesRepo(db: Database) {
  const due = db.query<{ event_id: string; endpoint_id: string; attempt: number; next_attempt_at: number }, [number, number]>(
    "SELECT event_id, endpoint_id, attempt, next_attempt_at FROM webhook_queue WHERE next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?",
  );
  const queued = db.query<{ attempt: number; next_attempt_at: number }, [string, string]>(
    "SELECT attempt, next_attempt_at FROM webhook_queue WHERE event_id = ? AND endpoint_id = ?",
  );
  const byId = db.query<DeliveryRow, [string]>("SELECT * FROM webhook_deliveries WHERE id = ?");
  const page = db.query<DeliveryRow, [string, string, number]>(
    "SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
  );

  return {
    /** Queue rows due at `now`, the longest-waiting first. */
    due(now: number, limit: number): QueueRow[] {
      return due.all(now, limit).map((r) => ({ eventId: r.event_id, endpointId: r.endpoint_id, attempt: r.attempt, nextAttemptAt: r.next_attempt_at }));
    },
    queued(eventId: string, endpointId: string): QueueRow | null {
      const r = queued.get(eventId, endpointId);
      return r ? { eventId, endpointId, attempt: r.attempt, nextAttemptAt: r.next_attempt_at } : null;
    },
    reschedule(eventId: string, endpointId: string, attempt: number, at: number): void {
      db.run("UPDATE webhook_queue SET attempt = ?, next_attempt_at = ? WHERE event_id = ? AND endpoint_id = ?", [attempt, at, eventId, endpointId]);
    },
    dequeue(eventId: string, endpointId: string): void {
      db.run("DELETE FROM webhook_queue WHERE event_id = ? AND endpoint_id = ?", [eventId, endpointId]);
    },
    record(d: StoredDelivery): void {
      db.run(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, event_type, attempt, created_at, duration_ms, status_code, error, response_excerpt)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [d.id, d.eventId, d.endpointId, d.eventType, d.attempt, d.createdAt, d.durationMs, d.statusCode, d.error, d.responseExcerpt],
      );
    },
    get(id: string): StoredDelivery | null {
      const r = byId.get(id);
      return r ? fromRow(r) : null;
    },
    /** An endpoint's attempts, newest first; `after` is the id of the last one of the previous page. */
    page(endpointId: string, after: string | null, limit: number): StoredDelivery[] {
      return page.all(endpointId, after ?? "\uffff", limit).map(fromRow);
    },
  };
}

export type WebhookDeliveriesRepo = ReturnType<typeof webhookDeliveriesRepo>;
