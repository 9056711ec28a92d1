// Where every event family is raised (docs/webhooks.md "Event types"): the event is stored once per
// natural key and queued durably for the project's endpoints; the dispatcher is then woken.
import type { Clock } from "../../lib/clock.ts";
import type { WebhookEventsRepo } from "../../store/repos/webhook-events.ts";
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

export class WebhookEmitter {
  private listeners: Array<(event: WebhookEvent, endpointIds: string[]) => void> = [];

  constructor(private readonly repo: WebhookEventsRepo, private readonly clock: Clock, private readonly onError: (err: unknown, type: string) => void) {}

  /** Stores and queues the event; null when its natural key was already used (or storing failed:
   * an event must never fail the request or admin call that raised it, so the error is logged). */
  readonly emit: EmitEvent = (input) => {
    const event = buildEvent(input.type, input.projectId, input.data, this.clock.now());
    try {
      const queued = this.repo.store(
        { id: event.id, projectId: event.project_id, type: event.type, naturalKey: input.key, body: JSON.stringify(event), createdAt: this.clock.now() },
        input.exceptEndpoint ?? null,
      );
      if (queued === null) return null;
      for (const listener of this.listeners) listener(event, queued);
      return event;
    } catch (err) {
      this.onError(err, input.type);
      return null;
    }
  };

  /** Called after each stored event with the endpoints it was queued for (the dispatcher wakes). */
  onEmitted(listener: (event: WebhookEvent, endpointIds: string[]) => void): void {
    this.listeners.push(listener);
  }
}
