// Where every event family is raised (docs/webhooks.md "Event types"): the event is stored once per
// natural key and queued durably for the project's endpoints; the dispatcher is then woken.
import type { Clock } from "../../lib/clock.ts";
import type { StoredEvent } from "../../store/repos/webhook-events.ts";
import { buildEvent, type WebhookEvent, type WebhookEventType } from "./event.ts";

export interface EmitInput {
  projectId: string;
  type: WebhookEventType;
  /** What makes this event one of a kind (`daily:2026-11-26:80` for a budget threshold): a second
   * emit with the same project, type and key is a no-op, however many requests race to send it. */
  key: string;
  data: Record<string, unknown>;
  /** Not queued for this endpoint (`webhook.endpoint_disabled` goes to the others). */
  exceptEndpoint?: string;
}

/** What emitting needs; tests and callers below the monitoring layer see only this. */
export type EmitEvent = (input: EmitInput) => WebhookEvent | null;

/** Where events go. SQLite's repo stores at once (null: a duplicate); the multi-instance queue
 * (shared-emit.ts) takes the event in memory, stores batches later and says so with onFlushed. */
export interface EventSink {
  store(e: StoredEvent, exceptEndpoint: string | null): string[] | null;
  onFlushed?(listener: () => void): void;
  flush?(): Promise<void>;
}

export class WebhookEmitter {
  private listeners: Array<() => void> = [];

  constructor(private readonly repo: EventSink, private readonly clock: Clock, private readonly onError: (err: unknown, type: string) => void) {}

  /** Stores and queues the event; null when its natural key was already used (or storing failed:
   * an event must never fail the request or admin call that raised it, so the error is logged).
   * Multi-instance: a duplicate is known only when its batch is stored, so the event is returned. */
  readonly emit: EmitEvent = (input) => {
    const event = buildEvent(input.type, input.projectId, input.data, this.clock.now());
    try {
      const queued = this.repo.store(
        { id: event.id, projectId: event.project_id, type: event.type, naturalKey: input.key, body: JSON.stringify(event), createdAt: this.clock.now() },
        input.exceptEndpoint ?? null,
      );
      if (queued === null) return null;
      for (const listener of this.listeners) listener();
      return event;
    } catch (err) {
      this.onError(err, input.type);
      return null;
    }
  };

  /** Called once events are stored and queued (the dispatcher wakes): after each emit, or after
   * each batch when the sink defers. */
  onStored(listener: () => void): void {
    if (this.repo.onFlushed) this.repo.onFlushed(listener);
    else this.listeners.push(listener);
  }

  /** Events still held in memory are stored (a no-op for SQLite). */
  flush(): Promise<void> {
    return this.repo.flush?.() ?? Promise.resolve();
  }
}
