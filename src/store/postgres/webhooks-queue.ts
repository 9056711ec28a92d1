// Webhook events, their durable queue and deliveries on PostgreSQL (docs/scale-out.md):
// events go in batches, once per natural key across instances; due rows are claimed with FOR UPDATE
// SKIP LOCKED for a lease, so each attempt is made by one instance and a dead one's claim expires.
import type { QueueRow, StoredDelivery, StoredEvent, WebhookDeliveryStore, WebhookEventStore, WebhookStores } from "../repos/webhook-stores.ts";
import { bounded, type Postgres } from "./connect.ts";
import { postgresWebhookEndpoints } from "./webhooks-endpoints.ts";

/** How long a claimed row is this instance's: an attempt's 15 s time-out plus its three bounded
 * writes (2 s each), with room; a killed instance's rows wait this long for another. */
export const WEBHOOK_CLAIM_MS = 30_000;

type Row = Record<string, unknown>;
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const eventOf = (r: Row): StoredEvent => ({
  id: String(r.id), projectId: String(r.project_id), type: String(r.type), naturalKey: String(r.natural_key), body: String(r.body), createdAt: Number(r.created_at),
});
const queueRowOf = (r: Row): QueueRow => ({ eventId: String(r.event_id), endpointId: String(r.endpoint_id), attempt: Number(r.attempt), nextAttemptAt: Number(r.next_attempt_at) });
const deliveryOf = (r: Row): StoredDelivery => ({
  id: String(r.id), eventId: String(r.event_id), endpointId: String(r.endpoint_id), eventType: String(r.event_type), attempt: Number(r.attempt),
  createdAt: Number(r.created_at), durationMs: numOrNull(r.duration_ms), statusCode: numOrNull(r.status_code), error: strOrNull(r.error),
  responseExcerpt: strOrNull(r.response_excerpt),
});

export interface EventToStore {
  event: StoredEvent;
  exceptEndpoint: string | null;
}

export interface PostgresWebhookEvents extends WebhookEventStore {
  /** Stores a batch in one statement: each event unless its natural key exists (ON CONFLICT DO
   * NOTHING), queued for its project's subscribed endpoints. Returns the ids stored, each with the
   * endpoints it was queued for; duplicates are absent. */
  storeMany(batch: EventToStore[]): Promise<Map<string, string[]>>;
}

export function postgresWebhookEvents(pg: Postgres, owner: string, claimMs = WEBHOOK_CLAIM_MS): PostgresWebhookEvents {
  const { sql } = pg;
  const storeMany = async (batch: EventToStore[]): Promise<Map<string, string[]>> => {
    const stored = new Map<string, string[]>();
    if (batch.length === 0) return stored;
    const json = JSON.stringify(batch.map(({ event: e, exceptEndpoint }) => ({
      id: e.id, project_id: e.projectId, type: e.type, natural_key: e.naturalKey, body: e.body, created_at: e.createdAt, except_endpoint: exceptEndpoint,
    })));
    const rows: Row[] = await bounded(pg, "webhook events", () => sql`
      WITH src AS (
        SELECT * FROM jsonb_to_recordset(${json}::text::jsonb)
          AS x(id text, project_id text, type text, natural_key text, body text, created_at bigint, except_endpoint text)
      ), ins AS (
        INSERT INTO webhook_events (id, project_id, type, natural_key, body, created_at)
        SELECT id, project_id, type, natural_key, body, created_at FROM src
        ON CONFLICT (project_id, type, natural_key) DO NOTHING RETURNING id
      ), q AS (
        INSERT INTO webhook_queue (event_id, endpoint_id, attempt, next_attempt_at, created_at)
        SELECT s.id, e.id, 1, s.created_at, s.created_at FROM ins JOIN src s ON s.id = ins.id
          JOIN webhook_endpoints e ON e.project_id = s.project_id AND e.enabled
            AND (e.events IS NULL OR e.events::jsonb @> to_jsonb(s.type)) AND e.id IS DISTINCT FROM s.except_endpoint
        ON CONFLICT DO NOTHING RETURNING event_id, endpoint_id
      )
      SELECT ins.id, q.endpoint_id FROM ins LEFT JOIN q ON q.event_id = ins.id`);
    for (const r of rows) {
      const id = String(r.id);
      const list = stored.get(id) ?? [];
      if (r.endpoint_id !== null && r.endpoint_id !== undefined) list.push(String(r.endpoint_id));
      stored.set(id, list);
    }
    return stored;
  };
  return {
    storeMany,
    async store(event, exceptEndpoint = null) {
      return (await storeMany([{ event, exceptEndpoint }])).get(event.id) ?? null;
    },
    storeFor: (e, endpointId) => bounded(pg, "webhook test event", () => sql.begin(async (tx) => {
      await tx`INSERT INTO webhook_events (id, project_id, type, natural_key, body, created_at)
        VALUES (${e.id}, ${e.projectId}, ${e.type}, ${e.naturalKey}, ${e.body}, ${e.createdAt}) ON CONFLICT DO NOTHING`;
      await tx`INSERT INTO webhook_queue (event_id, endpoint_id, attempt, next_attempt_at, created_at, claimed_by, claimed_until)
        VALUES (${e.id}, ${endpointId}, 1, ${e.createdAt}, ${e.createdAt}, ${owner}, ${e.createdAt + claimMs}) ON CONFLICT DO NOTHING`;
    })).then(() => undefined),
    async get(id) {
      const [r] = await bounded(pg, "webhook event", () => sql`SELECT id, project_id, type, natural_key, body, created_at FROM webhook_events WHERE id = ${id}`);
      return r ? eventOf(r) : null;
    },
    async enqueueOne(eventId, endpointId, now) {
      // Taken over unless another instance's claim is still running (its attempt is in flight).
      const rows: Row[] = await bounded(pg, "webhook replay", () => sql`
        INSERT INTO webhook_queue (event_id, endpoint_id, attempt, next_attempt_at, created_at, claimed_by, claimed_until)
        VALUES (${eventId}, ${endpointId}, 1, ${now}, ${now}, ${owner}, ${now + claimMs})
        ON CONFLICT (event_id, endpoint_id) DO UPDATE SET attempt = 1, next_attempt_at = excluded.next_attempt_at,
          claimed_by = excluded.claimed_by, claimed_until = excluded.claimed_until
        WHERE webhook_queue.claimed_until IS NULL OR webhook_queue.claimed_until < ${now} OR webhook_queue.claimed_by = ${owner}
        RETURNING event_id`);
      return rows.length > 0;
    },
  };
}

export function postgresWebhookDeliveries(pg: Postgres, owner: string, claimMs = WEBHOOK_CLAIM_MS): WebhookDeliveryStore {
  const { sql } = pg;
  return {
    claims: true,
    async due(now, limit) {
      const rows: Row[] = await bounded(pg, "webhook claims", () => sql`
        UPDATE webhook_queue q SET claimed_by = ${owner}, claimed_until = ${now + claimMs}
        FROM (SELECT event_id, endpoint_id FROM webhook_queue
              WHERE next_attempt_at <= ${now} AND (claimed_until IS NULL OR claimed_until < ${now})
              ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) d
        WHERE q.event_id = d.event_id AND q.endpoint_id = d.endpoint_id
        RETURNING q.event_id, q.endpoint_id, q.attempt, q.next_attempt_at`);
      return rows.map(queueRowOf).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
    },
    async queued(eventId, endpointId) {
      const [r] = await bounded(pg, "webhook queue row", () => sql`SELECT event_id, endpoint_id, attempt, next_attempt_at FROM webhook_queue
        WHERE event_id = ${eventId} AND endpoint_id = ${endpointId}`);
      return r ? queueRowOf(r) : null;
    },
    reschedule: (eventId, endpointId, attempt, at) => bounded(pg, "webhook reschedule", () => sql`UPDATE webhook_queue
      SET attempt = ${attempt}, next_attempt_at = ${at}, claimed_by = NULL, claimed_until = NULL
      WHERE event_id = ${eventId} AND endpoint_id = ${endpointId}`).then(() => undefined),
    dequeue: (eventId, endpointId) => bounded(pg, "webhook dequeue",
      () => sql`DELETE FROM webhook_queue WHERE event_id = ${eventId} AND endpoint_id = ${endpointId}`).then(() => undefined),
    record: (d) => bounded(pg, "webhook delivery", () => sql`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, event_type, attempt,
        created_at, duration_ms, status_code, error, response_excerpt)
      VALUES (${d.id}, ${d.eventId}, ${d.endpointId}, ${d.eventType}, ${d.attempt}, ${d.createdAt}, ${d.durationMs}, ${d.statusCode}, ${d.error},
        ${d.responseExcerpt})`).then(() => undefined),
    async get(id) {
      const [r] = await bounded(pg, "webhook delivery", () => sql`SELECT * FROM webhook_deliveries WHERE id = ${id}`);
      return r ? deliveryOf(r) : null;
    },
    async page(endpointId, after, limit) {
      // Ids compare bytewise (COLLATE "C"), as SQLite's do.
      const rows: Row[] = await bounded(pg, "webhook deliveries", () => after === null
        ? sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY id COLLATE "C" DESC LIMIT ${limit}`
        : sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND id COLLATE "C" < ${after} ORDER BY id COLLATE "C" DESC LIMIT ${limit}`);
      return rows.map(deliveryOf);
    },
  };
}

/** The three stores of one instance (`owner` names its claims). */
export function postgresWebhookStores(pg: Postgres, owner: string, claimMs = WEBHOOK_CLAIM_MS): WebhookStores & { events: PostgresWebhookEvents } {
  return { endpoints: postgresWebhookEndpoints(pg), events: postgresWebhookEvents(pg, owner, claimMs), deliveries: postgresWebhookDeliveries(pg, owner, claimMs) };
}
