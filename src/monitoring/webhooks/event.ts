// The webhook event envelope and the catalogue of event types (docs/webhooks.md "Event types").
// Every delivery's body is one envelope; `version` lets receivers detect payload changes.
import { sortableId } from "../../lib/ids.ts";

export const WEBHOOK_EVENT_VERSION = "2026-10-04";

export const WEBHOOK_EVENT_TYPES = [
  "test.ping",
  "incident.opened",
  "incident.resolved",
  "credits.low",
  "credits.depleted",
  "credits.added",
  "budget.threshold_reached",
  "budget.exceeded",
  "budget.downgraded",
  "plan.limit_warning",
  "plan.limit_reached",
  "invoice.created",
  "security.key_created",
  "security.key_revoked",
  "security.ip_blocked",
  "security.pii_blocked",
  "security.secret_detected",
  "security.auth_failure_spike",
  "webhook.endpoint_disabled",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === "string" && TYPES.has(value);
}

export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: WebhookEventType;
  version: typeof WEBHOOK_EVENT_VERSION;
  /** ISO 8601 with an explicit offset (always `+00:00`). */
  timestamp: string;
  project_id: string;
  data: D;
}

/** Event ids sort by creation time like every other gw id. */
export const newEventId = (now: number): string => `evt_${sortableId(now)}`;

/** ISO 8601 with a numeric offset rather than `Z`, as the envelope promises. */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "+00:00");
}

export function buildEvent<D>(type: WebhookEventType, projectId: string, data: D, now: number): WebhookEvent<D> {
  return { id: newEventId(now), type, version: WEBHOOK_EVENT_VERSION, timestamp: isoWithOffset(now), project_id: projectId, data };
}

/** Does an endpoint subscribed to `events` receive `type`? No list (null or omitted) means all. */
export function subscribes(events: readonly string[] | null | undefined, type: WebhookEventType): boolean {
  return events === null || events === undefined || events.includes(type);
}

/** Validates a requested subscription list; returns the unknown names (empty when all are known). */
export function unknownEventTypes(events: readonly string[]): string[] {
  return events.filter((e) => !isWebhookEventType(e));
}
