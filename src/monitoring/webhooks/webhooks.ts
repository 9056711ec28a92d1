// The webhook service on Deps (docs/webhooks.md "Endpoints"): endpoint management for the admin API
// and dashboard, test pings and replays sent at once, and the dispatcher's timer and wake-up.
import { GwError } from "../../errors/gw-error.ts";
import { sortableId } from "../../lib/ids.ts";
import type { StoredDelivery, StoredEndpoint, WebhookStores } from "../../store/repos/webhook-stores.ts";
import { Dispatcher, type DispatcherDeps } from "./dispatcher.ts";
import type { WebhookEmitter } from "./emitter.ts";
import { parseCreateBody, parseUpdateBody, urlRefused } from "./endpoint-body.ts";
import { buildEvent, WEBHOOK_EVENT_TYPES } from "./event.ts";
import { newWebhookSecret } from "./signing.ts";
import { checkWebhookUrl } from "./url-safety.ts";

export interface WebhookEndpointView {
  object: "webhook_endpoint";
  id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}
export type WebhookEndpointCreated = WebhookEndpointView & { secret: string };

export interface WebhookDeliveryView {
  object: "webhook_delivery";
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  created_at: string;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export const endpointView = (e: StoredEndpoint): WebhookEndpointView => ({
  object: "webhook_endpoint",
  id: e.id,
  project_id: e.projectId,
  url: e.url,
  events: e.events ?? [...WEBHOOK_EVENT_TYPES],
  description: e.description,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  created_at: iso(e.createdAt),
  updated_at: iso(e.updatedAt),
});

export const deliveryView = (d: StoredDelivery): WebhookDeliveryView => ({
  object: "webhook_delivery",
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  attempt: d.attempt,
  created_at: iso(d.createdAt),
  duration_ms: d.durationMs,
  status_code: d.statusCode,
  error: d.error,
  response_excerpt: d.responseExcerpt,
});

/** How often the queue is looked at without a wake-up (a retry falling due). */
export const DISPATCH_INTERVAL_MS = 1000;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;
/** Every event is signed and sent once per endpoint: a bound keeps one event's fan-out small. */
export const MAX_ENDPOINTS_PER_PROJECT = 20;

/** What the service is built from besides its stores. */
export type WebhooksOptions = Omit<DispatcherDeps, "emit" | "endpoints" | "deliveries" | "events"> & { emitter: WebhookEmitter };

/** Owners remembered (endpoints and deliveries this service read, deleted endpoints included) so the
 * audit entry of a call names its project without a read of its own (multi-instance: an await). */
const REMEMBER_OWNERS = 1024;

export class Webhooks {
  private readonly d: DispatcherDeps;
  private readonly dispatcher: Dispatcher;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly owners = new Map<string, string>();
  private wakePending = false;
  private readonly emitter: WebhookEmitter;
  private readonly projectOfNow: WebhookStores["projectOfNow"];

  constructor(stores: WebhookStores, options: WebhooksOptions) {
    this.d = { ...options, ...stores, emit: options.emitter.emit };
    this.emitter = options.emitter;
    this.projectOfNow = stores.projectOfNow;
    this.dispatcher = new Dispatcher(this.d);
    // A new event goes out at once rather than at the next tick: after the emitting code's own
    // synchronous work (its transaction) is done, or its batch is stored, one pass for a burst.
    options.emitter.onStored(() => {
      if (this.timer === null || this.wakePending) return;
      this.wakePending = true;
      queueMicrotask(() => {
        this.wakePending = false;
        void this.runDue().catch((err) => this.d.onError(err, "webhook dispatch failed"));
      });
    });
  }

  /** The project an endpoint or delivery belongs to (for the audit log), deleted endpoints included;
   * read at once from SQLite (multi-instance: deleted endpoints only, see ownerOf). */
  projectOf(ids: { webhookId?: string; deliveryId?: string }): string | null {
    const found = this.projectOfNow?.(ids) ?? null;
    const id = ids.webhookId ?? ids.deliveryId;
    return found ?? (id ? (this.owners.get(id) ?? null) : null);
  }

  /** projectOf read from the stores (either mode). */
  async ownerOf(ids: { webhookId?: string; deliveryId?: string }): Promise<string | null> {
    if (ids.webhookId) return (await this.d.endpoints.get(ids.webhookId))?.projectId ?? this.owners.get(ids.webhookId) ?? null;
    if (ids.deliveryId) return (await this.delivery(ids.deliveryId))?.project_id ?? null;
    return null;
  }

  private remember(id: string, projectId: string): void {
    this.owners.delete(id);
    this.owners.set(id, projectId);
    if (this.owners.size > REMEMBER_OWNERS) this.owners.delete(this.owners.keys().next().value ?? "");
  }

  private async endpointOr404(id: string): Promise<StoredEndpoint> {
    const endpoint = await this.d.endpoints.get(id);
    if (endpoint) this.remember(id, endpoint.projectId);
    if (!endpoint) throw new GwError("not_found", `No webhook endpoint '${id}'.`, { param: "webhook_id" });
    return endpoint;
  }

  private async checkUrl(url: string): Promise<void> {
    const checked = await checkWebhookUrl(url, { allowLoopback: this.d.allowLoopback, resolve: this.d.resolve });
    if (!checked.ok) throw urlRefused(checked.reason);
  }

  async create(projectId: string, body: unknown): Promise<WebhookEndpointCreated> {
    const input = parseCreateBody(body);
    if ((await this.d.endpoints.list(projectId)).length >= MAX_ENDPOINTS_PER_PROJECT) {
      throw new GwError("conflict", `A project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first.`, { param: "url" });
    }
    await this.checkUrl(input.url);
    const now = this.d.clock.now();
    const secret = newWebhookSecret();
    const endpoint: StoredEndpoint = {
      id: `whe_${sortableId(now)}`, projectId, url: input.url, events: input.events ?? null, description: input.description ?? null,
      enabled: true, sealedSecret: this.d.secrets.seal(secret), sealedPreviousSecret: null, rotatedAt: null, failingSince: null,
      disabledReason: null, createdAt: now, updatedAt: now,
    };
    await this.d.endpoints.insert(endpoint);
    this.remember(endpoint.id, projectId);
    return { ...endpointView(endpoint), secret };
  }

  async list(projectId: string): Promise<{ object: "list"; data: WebhookEndpointView[] }> {
    return { object: "list", data: (await this.d.endpoints.list(projectId)).map(endpointView) };
  }

  async get(id: string): Promise<WebhookEndpointView | null> {
    const endpoint = await this.d.endpoints.get(id);
    if (endpoint) this.remember(id, endpoint.projectId);
    return endpoint ? endpointView(endpoint) : null;
  }

  async update(id: string, body: unknown): Promise<WebhookEndpointView> {
    await this.endpointOr404(id);
    const input = parseUpdateBody(body);
    if (input.url !== undefined) await this.checkUrl(input.url);
    await this.d.endpoints.update(id, input, this.d.clock.now());
    return endpointView(await this.endpointOr404(id));
  }

  async remove(id: string): Promise<{ object: "webhook_endpoint"; id: string; deleted: true }> {
    const endpoint = await this.endpointOr404(id);
    await this.d.endpoints.remove(id);
    this.remember(id, endpoint.projectId);
    return { object: "webhook_endpoint", id, deleted: true };
  }

  /** A new secret; the old one keeps signing alongside it for 24 h (docs/webhooks.md "Verifying a delivery"). */
  async rotateSecret(id: string): Promise<WebhookEndpointCreated> {
    const endpoint = await this.endpointOr404(id);
    const secret = newWebhookSecret();
    await this.d.endpoints.rotate(id, this.d.secrets.seal(secret), endpoint.sealedSecret, this.d.clock.now());
    return { ...endpointView(await this.endpointOr404(id)), secret };
  }

  private async enabledOr409(id: string): Promise<StoredEndpoint> {
    const endpoint = await this.endpointOr404(id);
    if (!endpoint.enabled) throw new GwError("conflict", `Webhook endpoint '${id}' is disabled; enable it first.`, { param: "webhook_id" });
    return endpoint;
  }

  /** Sends `test.ping` to this endpoint alone, now, and answers with the attempt. */
  async sendTest(id: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.enabledOr409(id);
    const now = this.d.clock.now();
    const event = buildEvent("test.ping", endpoint.projectId, { endpoint_id: endpoint.id }, now);
    // A fresh natural key each time: every test is its own event.
    await this.d.events.storeFor({ id: event.id, projectId: endpoint.projectId, type: event.type, naturalKey: `test:${event.id}`, body: JSON.stringify(event), createdAt: now }, endpoint.id);
    return this.attemptNow(event.id, endpoint.id);
  }

  private async attemptNow(eventId: string, endpointId: string): Promise<WebhookDeliveryView> {
    const delivery = await this.dispatcher.attempt({ eventId, endpointId, attempt: 1, nextAttemptAt: this.d.clock.now() });
    if (!delivery) throw new GwError("not_found", `Webhook endpoint '${endpointId}' is gone or disabled.`, { param: "webhook_id" });
    return deliveryView(delivery);
  }

  async deliveries(id: string, q: { limit?: number; after?: string }): Promise<{ object: "list"; data: WebhookDeliveryView[]; has_more: boolean }> {
    await this.endpointOr404(id);
    const limit = Math.min(Math.max(1, Math.floor(q.limit ?? DEFAULT_PAGE)), MAX_PAGE);
    const rows = await this.d.deliveries.page(id, q.after ?? null, limit + 1);
    return { object: "list", data: rows.slice(0, limit).map(deliveryView), has_more: rows.length > limit };
  }

  async delivery(id: string): Promise<(WebhookDeliveryView & { endpoint_id: string; project_id: string }) | null> {
    const d = await this.d.deliveries.get(id);
    const event = d ? await this.d.events.get(d.eventId) : null;
    if (event) this.remember(id, event.projectId);
    return d && event ? { ...deliveryView(d), endpoint_id: d.endpointId, project_id: event.projectId } : null;
  }

  /** The same event (id and body) again, signed now: attempt 1 of a new series. */
  async replay(deliveryId: string): Promise<WebhookDeliveryView> {
    const d = await this.d.deliveries.get(deliveryId);
    if (!d) throw new GwError("not_found", `No webhook delivery '${deliveryId}'.`, { param: "delivery_id" });
    this.remember(deliveryId, (await this.enabledOr409(d.endpointId)).projectId);
    const row = { eventId: d.eventId, endpointId: d.endpointId, attempt: 1, nextAttemptAt: this.d.clock.now() };
    const delivery = await this.dispatcher.attemptAlone(row, () => this.d.events.enqueueOne(d.eventId, d.endpointId, this.d.clock.now()));
    if (delivery === undefined) throw new GwError("conflict", `An attempt of this delivery's event is in flight on another instance; try again.`, { param: "delivery_id" });
    if (!delivery) throw new GwError("not_found", `Webhook endpoint '${d.endpointId}' is gone or disabled.`, { param: "webhook_id" });
    return deliveryView(delivery);
  }

  runDue(): Promise<number> {
    return this.dispatcher.runDue();
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.runDue().catch((err) => this.d.onError(err, "webhook dispatch failed")), DISPATCH_INTERVAL_MS);
    void this.runDue();
  }

  /** Stops the timer and waits for the attempts in flight (each ends within its 15 s timeout). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    // Multi-instance: events still batched in memory are stored before the stop ends.
    await this.emitter.flush();
    await this.dispatcher.settled();
  }
}
