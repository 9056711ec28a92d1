// Bounded growth of the webhook tables (docs/webhooks.md "Retries"): delivery attempts are kept 30
// days, events 90 (past every period a natural key names, so no event can be sent twice).
import type { Database } from "bun:sqlite";

export const WEBHOOK_DELIVERY_DAYS = 30;
export const WEBHOOK_EVENT_DAYS = 90;
const DAY_MS = 86_400_000;

/** Deletes at most `batch` expired deliveries and `batch` expired events no queue row still needs;
 * returns how many rows went. Small transactions: the request thread's writers never wait long. */
export function pruneWebhooks(db: Database, now: number, batch = 500): number {
  const deliveries = db.run(
    "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < ? LIMIT ?)",
    [now - WEBHOOK_DELIVERY_DAYS * DAY_MS, batch],
  ).changes;
  const events = db.run(
    `DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e WHERE e.created_at < ?
       AND NOT EXISTS (SELECT 1 FROM webhook_queue q WHERE q.event_id = e.id) LIMIT ?)`,
    [now - WEBHOOK_EVENT_DAYS * DAY_MS, batch],
  ).changes;
  return deliveries + events;
}
