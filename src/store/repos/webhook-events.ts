// Webhook events and their queueing (migration 012): an event is stored once per natural key, and
// in the same transaction queued for every enabled endpoint of its project that subscribes to it.
import type { Database } from "bun:sqlite";

export interface StoredEvent {
  id: string;
  projectId: string;
  type: string;
  naturalKey: string;
  body: string;
  createdAt: number;
}

interface EndpointRow {
  id: string;
  events: string | null;
}

export function webhookEventsRepo(db: Database) {
  const insertEvent = db.query<unknown, [string, string, string, string, string, number]>(
    "INSERT OR IGNORE INTO webhook_events (id, project_id, type, natural_key, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const endpointsOf = db.query<EndpointRow, [string]>("SELECT id, events FROM webhook_endpoints WHERE project_id = ? AND enabled = 1");
  const enqueue = db.query<unknown, [string, string, number, number]>(
    "INSERT OR IGNORE INTO webhook_queue (event_id, endpoint_id, attempt, next_attempt_at, created_at) VALUES (?, ?, 1, ?, ?)",
  );
  const byId = db.query<{ id: string; project_id: string; type: string; natural_key: string; body: string; created_at: number }, [string]>(
    "SELECT id, project_id, type, natural_key, body, created_at FROM webhook_events WHERE id = ?",
  );

  /** Stores the event unless its (project, type, natural key) exists; when stored, queues it for the
   * project's enabled endpoints that subscribe to its type (all but `exceptEndpoint`). Returns the
   * endpoint ids queued, or null when the event was a duplicate. */
  const store = db.transaction((e: StoredEvent, exceptEndpoint: string | null): string[] | null => {
    if (insertEvent.run(e.id, e.projectId, e.type, e.naturalKey, e.body, e.createdAt).changes === 0) return null;
    const queued: string[] = [];
    for (const endpoint of endpointsOf.all(e.projectId)) {
      if (endpoint.id === exceptEndpoint) continue;
      const events = endpoint.events === null ? null : (JSON.parse(endpoint.events) as string[]);
      if (events !== null && !events.includes(e.type)) continue;
      enqueue.run(e.id, endpoint.id, e.createdAt, e.createdAt);
      queued.push(endpoint.id);
    }
    return queued;
  });

  /** Stores an event for one endpoint alone (a test ping): queued for it whatever it subscribes to. */
  const storeFor = db.transaction((e: StoredEvent, endpointId: string): void => {
    insertEvent.run(e.id, e.projectId, e.type, e.naturalKey, e.body, e.createdAt);
    enqueue.run(e.id, endpointId, e.createdAt, e.createdAt);
  });

  return {
    store: (e: StoredEvent, exceptEndpoint: string | null = null): string[] | null => store.immediate(e, exceptEndpoint),
    storeFor: (e: StoredEvent, endpointId: string): void => storeFor.immediate(e, endpointId),
    get(id: string): StoredEvent | null {
      const r = byId.get(id);
      return r ? { id: r.id, projectId: r.project_id, type: r.type, naturalKey: r.natural_key, body: r.body, createdAt: r.created_at } : null;
    },
    /** Queues a stored event for one endpoint now (a test ping, a replay): attempt 1 of a new series. */
    enqueueOne(eventId: string, endpointId: string, now: number): void {
      db.run(
        "INSERT INTO webhook_queue (event_id, endpoint_id, attempt, next_attempt_at, created_at) VALUES (?, ?, 1, ?, ?) ON CONFLICT (event_id, endpoint_id) DO UPDATE SET attempt = 1, next_attempt_at = excluded.next_attempt_at",
        [eventId, endpointId, now, now],
      );
    },
  };
}

export type WebhookEventsRepo = ReturnType<typeof webhookEventsRepo>;
