// Works the durable queue (docs/webhooks.md "Retries"): each due row is signed at the time of its
// attempt, sent once, recorded, then dropped, rescheduled, or its endpoint disabled. A row is never
// attempted twice at once: attempts in flight are kept by (event, endpoint).
import type { Clock } from "../../lib/clock.ts";
import { sortableId } from "../../lib/ids.ts";
import type { SecretBox } from "../../lib/secret-box.ts";
import type { QueueRow, StoredDelivery, StoredEndpoint, WebhookDeliveryStore, WebhookEndpointStore, WebhookEventStore } from "../../store/repos/webhook-stores.ts";
import type { EmitEvent } from "./emitter.ts";
import { isoWithOffset } from "./event.ts";
import { failedTooLong, nextAttemptAt, outcomeOf } from "./retry-schedule.ts";
import { sendDelivery, type SendResult } from "./send.ts";
import { signatureHeaders, signingSecrets } from "./signing.ts";
import type { Resolve } from "./url-safety.ts";

export interface DispatcherDeps {
  endpoints: WebhookEndpointStore;
  deliveries: WebhookDeliveryStore;
  events: WebhookEventStore;
  emit: EmitEvent;
  secrets: SecretBox;
  clock: Clock;
  allowLoopback: boolean;
  onError: (err: unknown, what: string) => void;
  resolve?: Resolve;
  /** [0, 1): the retry jitter; injected so a test can pin it. */
  random?: () => number;
}

/** Attempts started by one pass at most, and in flight at once. */
const MAX_IN_FLIGHT = 64;

const rowKey = (eventId: string, endpointId: string): string => `${eventId} ${endpointId}`;

export class Dispatcher {
  private readonly inFlight = new Map<string, Promise<StoredDelivery | null>>();
  /** An unreadable queue is said once per streak (each pass, every second, would say it again). */
  private queueFailing = false;

  constructor(private readonly d: DispatcherDeps) {}

  /** Attempts every row due now that is not already in flight; resolves when those and every
   * attempt already in flight have finished. Returns how many attempts this pass started. */
  async runDue(): Promise<number> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    let started = 0;
    if (room > 0) {
      let rows: QueueRow[] = [];
      try {
        // A claiming store answers none of the rows in flight here: a claimed row not started would wait out its claim.
        rows = await this.d.deliveries.due(this.d.clock.now(), this.d.deliveries.claims ? room : room + this.inFlight.size);
        this.queueFailing = false;
      } catch (err) {
        if (!this.queueFailing) this.d.onError(err, "webhook queue not read (said once until it is)");
        this.queueFailing = true;
      }
      for (const row of rows) {
        if (started >= room) break;
        if (this.inFlight.has(rowKey(row.eventId, row.endpointId))) continue;
        void this.attempt(row);
        started++;
      }
    }
    await this.settled();
    return started;
  }

  /** Resolves once nothing is in flight (attempts started meanwhile included). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /** An attempt of this row started only once none is in flight (a replay must not overlap one);
   * `before` (re-queueing it) runs between that check and the start; false from it: the row is
   * another instance's attempt in flight, and nothing starts (undefined). */
  async attemptAlone(row: QueueRow, before: () => Promise<boolean>): Promise<StoredDelivery | null | undefined> {
    const key = rowKey(row.eventId, row.endpointId);
    for (let running = this.inFlight.get(key); running; running = this.inFlight.get(key)) await running;
    if (!(await before())) return undefined;
    // A pass of runDue that took the re-queued row meanwhile is this attempt (attempt answers it).
    return this.attempt(row);
  }

  /** One attempt of a queue row; the one already in flight when there is one. Null: nothing sent
   * (the endpoint or event is gone, or the endpoint is disabled), and the row is dropped. */
  attempt(row: QueueRow): Promise<StoredDelivery | null> {
    const key = rowKey(row.eventId, row.endpointId);
    const running = this.inFlight.get(key);
    if (running) return running;
    const p = this.run(row)
      .catch((err) => {
        this.d.onError(err, "webhook attempt failed");
        return null;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  private async run(row: QueueRow): Promise<StoredDelivery | null> {
    const { endpoints, deliveries, events, clock } = this.d;
    const [endpoint, event] = await Promise.all([endpoints.get(row.endpointId), events.get(row.eventId)]);
    if (!endpoint || !endpoint.enabled || !event) {
      await deliveries.dequeue(row.eventId, row.endpointId);
      return null;
    }
    const startedAt = clock.now();
    const result = await this.send(endpoint, event.id, event.body, startedAt);
    const outcome = outcomeOf(result.status);
    const delivery: StoredDelivery = {
      id: `whd_${sortableId(startedAt)}`,
      eventId: event.id,
      endpointId: endpoint.id,
      eventType: event.type,
      attempt: row.attempt,
      createdAt: startedAt,
      durationMs: result.durationMs,
      statusCode: result.status,
      error: result.error ?? (outcome === "failure" ? "redirect not followed" : null),
      responseExcerpt: result.excerpt,
    };
    await deliveries.record(delivery);

    const now = clock.now();
    if (outcome === "success") {
      await deliveries.dequeue(event.id, endpoint.id);
      await endpoints.markHealthy(endpoint.id);
    } else if (outcome === "disable") {
      await deliveries.dequeue(event.id, endpoint.id);
      await this.disable(endpoint, "gone", endpoint.failingSince ?? startedAt, now);
    } else {
      await endpoints.markFailing(endpoint.id, startedAt);
      const failingSince = endpoint.failingSince ?? startedAt;
      const next = nextAttemptAt(row.attempt, now, result.retryAfter, this.d.random ?? Math.random);
      if (failedTooLong(failingSince, now)) await this.disable(endpoint, "failing", failingSince, now);
      else if (next === null) await deliveries.dequeue(event.id, endpoint.id);
      else await deliveries.reschedule(event.id, endpoint.id, row.attempt + 1, next);
    }
    return delivery;
  }

  private async send(endpoint: StoredEndpoint, eventId: string, body: string, at: number): Promise<SendResult> {
    let secrets: string[];
    try {
      const current = this.d.secrets.open(endpoint.sealedSecret);
      const previous = endpoint.sealedPreviousSecret === null ? null : this.d.secrets.open(endpoint.sealedPreviousSecret);
      secrets = signingSecrets(current, previous, endpoint.rotatedAt, at);
    } catch (err) {
      this.d.onError(err, "webhook secret cannot be opened (secret.key lost or GW_SECRET_KEY changed?)");
      return { status: null, error: "the endpoint's secret cannot be opened; rotate it", excerpt: null, retryAfter: null, durationMs: 0 };
    }
    const headers = signatureHeaders(secrets, eventId, Math.floor(at / 1000), body);
    return sendDelivery(endpoint.url, { ...headers }, body, { allowLoopback: this.d.allowLoopback, resolve: this.d.resolve });
  }

  /** Turns the endpoint off and tells the project's other endpoints (docs/webhooks.md "Retries"). */
  private async disable(endpoint: StoredEndpoint, reason: "gone" | "failing", failingSince: number, now: number): Promise<void> {
    await this.d.endpoints.disable(endpoint.id, reason, failingSince, now);
    this.d.emit({
      projectId: endpoint.projectId,
      type: "webhook.endpoint_disabled",
      key: `${endpoint.id}:${now}`,
      data: { endpoint_id: endpoint.id, url: endpoint.url, reason, failing_since: isoWithOffset(failingSince) },
      exceptEndpoint: endpoint.id,
    });
  }
}
