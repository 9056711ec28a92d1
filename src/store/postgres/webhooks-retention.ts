// Bounded growth of PostgreSQL's webhook tables (docs/webhooks.md "Retries"): the leader's hourly
// job keeps attempts 30 days and events 90, as single-node's log maintenance does (repos/webhook-retention.ts).
import { WEBHOOK_DELIVERY_DAYS, WEBHOOK_EVENT_DAYS } from "../repos/webhook-retention.ts";
import type { LeaderJob } from "./leader.ts";

const DAY_MS = 86_400_000;
/** Rows one pass deletes at most per table; the next pass takes the rest. */
const BATCH = 5_000;

export function webhookRetentionJob(everyMs = 3_600_000): LeaderJob {
  return {
    name: "webhook retention",
    everyMs,
    async run(tx, now) {
      await tx`DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < ${now - WEBHOOK_DELIVERY_DAYS * DAY_MS} LIMIT ${BATCH})`;
      await tx`DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e WHERE e.created_at < ${now - WEBHOOK_EVENT_DAYS * DAY_MS}
        AND NOT EXISTS (SELECT 1 FROM webhook_queue q WHERE q.event_id = e.id) LIMIT ${BATCH})`;
    },
  };
}
