// The webhook stores behind the webhook service (docs/webhooks.md): one interface each for endpoints,
// events with their queue, and deliveries; SQLite's here, PostgreSQL's in store/postgres/webhooks-*.ts.
import type { Database } from "bun:sqlite";
import { type QueueRow, type StoredDelivery, webhookDeliveriesRepo } from "./webhook-deliveries.ts";
import { type StoredEndpoint, webhookEndpointsRepo } from "./webhook-endpoints.ts";
import { type StoredEvent, webhookEventsRepo } from "./webhook-events.ts";

export type { QueueRow, StoredDelivery, StoredEndpoint, StoredEvent };

export type EndpointPatch = { url?: string; events?: string[] | null; description?: string | null; enabled?: boolean };

export interface WebhookEndpointStore {
  insert(e: StoredEndpoint): Promise<void>;
  get(id: string): Promise<StoredEndpoint | null>;
  list(projectId: string): Promise<StoredEndpoint[]>;
  /** Operator changes; enabling clears the failure state, disabling drops the endpoint's queue. */
  update(id: string, patch: EndpointPatch, now: number): Promise<void>;
  remove(id: string): Promise<boolean>;
  disable(id: string, reason: string | null, failingSince: number | null, now: number): Promise<void>;
  rotate(id: string, sealedSecret: string, sealedPrevious: string, now: number): Promise<void>;
  markFailing(id: string, at: number): Promise<void>;
  markHealthy(id: string): Promise<void>;
}

export interface WebhookEventStore {
  /** Stores the event once per (project, type, natural key) and queues it for the project's enabled
   * endpoints subscribed to its type (all but `exceptEndpoint`); null when it was a duplicate. */
  store(e: StoredEvent, exceptEndpoint?: string | null): Promise<string[] | null>;
  /** An event for one endpoint alone (a test ping), queued for this instance to attempt now. */
  storeFor(e: StoredEvent, endpointId: string): Promise<void>;
  get(id: string): Promise<StoredEvent | null>;
  /** Queues a stored event for one endpoint now (a replay), for this instance to attempt; false
   * when another instance's attempt of that row is in flight. */
  enqueueOne(eventId: string, endpointId: string, now: number): Promise<boolean>;
}

export interface WebhookDeliveryStore {
  /** Queue rows due at `now`, the longest-waiting first; in the multi-instance mode each is claimed
   * for this instance (no other takes it until its claim expires). */
  due(now: number, limit: number): Promise<QueueRow[]>;
  /** due() claims: rows this instance has in flight are not answered again, so none is asked for them. */
  readonly claims?: true;
  queued(eventId: string, endpointId: string): Promise<QueueRow | null>;
  reschedule(eventId: string, endpointId: string, attempt: number, at: number): Promise<void>;
  dequeue(eventId: string, endpointId: string): Promise<void>;
  record(d: StoredDelivery): Promise<void>;
  get(id: string): Promise<StoredDelivery | null>;
  /** An endpoint's attempts, newest first; `after` is the id of the last one of the previous page. */
  page(endpointId: string, after: string | null, limit: number): Promise<StoredDelivery[]>;
}

export interface WebhookStores {
  endpoints: WebhookEndpointStore;
  events: WebhookEventStore;
  deliveries: WebhookDeliveryStore;
  /** Single-node: the owning project read at once (the admin audit hook is synchronous). */
  projectOfNow?(ids: { webhookId?: string; deliveryId?: string }): string | null;
}

/** SQLite's stores: the synchronous repos, answered as promises. */
export function sqliteWebhookStores(db: Database): WebhookStores {
  const endpoints = webhookEndpointsRepo(db);
  const events = webhookEventsRepo(db);
  const deliveries = webhookDeliveriesRepo(db);
  return {
    endpoints: {
      insert: async (e) => endpoints.insert(e),
      get: async (id) => endpoints.get(id),
      list: async (projectId) => endpoints.list(projectId),
      update: async (id, patch, now) => endpoints.update(id, patch, now),
      remove: async (id) => endpoints.remove(id),
      disable: async (id, reason, failingSince, now) => endpoints.disable(id, reason, failingSince, now),
      rotate: async (id, sealed, previous, now) => endpoints.rotate(id, sealed, previous, now),
      markFailing: async (id, at) => endpoints.markFailing(id, at),
      markHealthy: async (id) => endpoints.markHealthy(id),
    },
    events: {
      store: async (e, except = null) => events.store(e, except),
      storeFor: async (e, endpointId) => events.storeFor(e, endpointId),
      get: async (id) => events.get(id),
      enqueueOne: async (eventId, endpointId, now) => (events.enqueueOne(eventId, endpointId, now), true),
    },
    deliveries: {
      due: async (now, limit) => deliveries.due(now, limit),
      queued: async (eventId, endpointId) => deliveries.queued(eventId, endpointId),
      reschedule: async (eventId, endpointId, attempt, at) => deliveries.reschedule(eventId, endpointId, attempt, at),
      dequeue: async (eventId, endpointId) => deliveries.dequeue(eventId, endpointId),
      record: async (d) => deliveries.record(d),
      get: async (id) => deliveries.get(id),
      page: async (endpointId, after, limit) => deliveries.page(endpointId, after, limit),
    },
    projectOfNow(ids) {
      if (ids.webhookId) return endpoints.get(ids.webhookId)?.projectId ?? null;
      const d = ids.deliveryId ? deliveries.get(ids.deliveryId) : null;
      return d ? (events.get(d.eventId)?.projectId ?? null) : null;
    },
  };
}
