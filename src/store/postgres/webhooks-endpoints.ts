// Webhook endpoints on PostgreSQL (docs/scale-out.md): the same rows as SQLite's repo
// (store/repos/webhook-endpoints.ts); disabling or deleting drops the endpoint's queue in one transaction.
import type { EndpointPatch, StoredEndpoint, WebhookEndpointStore } from "../repos/webhook-stores.ts";
import { bounded, type Postgres } from "./connect.ts";

type Row = Record<string, unknown>;

const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export const endpointOf = (r: Row): StoredEndpoint => ({
  id: String(r.id),
  projectId: String(r.project_id),
  url: String(r.url),
  events: r.events === null || r.events === undefined ? null : (JSON.parse(String(r.events)) as string[]),
  description: strOrNull(r.description),
  enabled: r.enabled === true,
  sealedSecret: String(r.secret),
  sealedPreviousSecret: strOrNull(r.previous_secret),
  rotatedAt: numOrNull(r.rotated_at),
  failingSince: numOrNull(r.failing_since),
  disabledReason: strOrNull(r.disabled_reason),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const eventsText = (events: string[] | null): string | null => (events === null ? null : JSON.stringify(events));

export function postgresWebhookEndpoints(pg: Postgres): WebhookEndpointStore {
  const { sql } = pg;
  const get = async (id: string): Promise<StoredEndpoint | null> => {
    const [r] = await bounded(pg, "webhook endpoint", () => sql`SELECT * FROM webhook_endpoints WHERE id = ${id}`);
    return r ? endpointOf(r) : null;
  };
  const disable = (id: string, reason: string | null, failingSince: number | null, now: number) =>
    bounded(pg, "webhook endpoint disable", () => sql.begin(async (tx) => {
      await tx`UPDATE webhook_endpoints SET enabled = false, disabled_reason = ${reason}, failing_since = ${failingSince}, updated_at = ${now} WHERE id = ${id}`;
      await tx`DELETE FROM webhook_queue WHERE endpoint_id = ${id}`;
    })).then(() => undefined);
  return {
    insert: (e) => bounded(pg, "webhook endpoint insert", () => sql`INSERT INTO webhook_endpoints (id, project_id, url, events, description,
        enabled, secret, previous_secret, rotated_at, failing_since, disabled_reason, created_at, updated_at)
      VALUES (${e.id}, ${e.projectId}, ${e.url}, ${eventsText(e.events)}, ${e.description}, ${e.enabled}, ${e.sealedSecret},
        ${e.sealedPreviousSecret}, ${e.rotatedAt}, ${e.failingSince}, ${e.disabledReason}, ${e.createdAt}, ${e.updatedAt})`).then(() => undefined),
    get,
    async list(projectId) {
      const rows: Row[] = await bounded(pg, "webhook endpoints", () => sql`SELECT * FROM webhook_endpoints WHERE project_id = ${projectId} ORDER BY created_at, id`);
      return rows.map(endpointOf);
    },
    async update(id: string, patch: EndpointPatch, now: number) {
      const current = await get(id);
      if (!current) return;
      if (patch.enabled === false && current.enabled) await disable(id, null, current.failingSince, now);
      const url = patch.url ?? current.url;
      const events = eventsText(patch.events === undefined ? current.events : patch.events);
      const description = patch.description === undefined ? current.description : patch.description;
      await bounded(pg, "webhook endpoint update", () => patch.enabled === true
        ? sql`UPDATE webhook_endpoints SET url = ${url}, events = ${events}, description = ${description}, updated_at = ${now},
            enabled = true, failing_since = NULL, disabled_reason = NULL WHERE id = ${id}`
        : sql`UPDATE webhook_endpoints SET url = ${url}, events = ${events}, description = ${description}, updated_at = ${now} WHERE id = ${id}`);
    },
    remove: (id) => bounded(pg, "webhook endpoint delete", () => sql.begin(async (tx) => {
      await tx`DELETE FROM webhook_queue WHERE endpoint_id = ${id}`;
      const gone = await tx`DELETE FROM webhook_endpoints WHERE id = ${id} RETURNING id`;
      return gone.length > 0;
    })),
    disable,
    rotate: (id, sealed, previous, now) => bounded(pg, "webhook secret rotation",
      () => sql`UPDATE webhook_endpoints SET secret = ${sealed}, previous_secret = ${previous}, rotated_at = ${now}, updated_at = ${now} WHERE id = ${id}`).then(() => undefined),
    markFailing: (id, at) => bounded(pg, "webhook endpoint failing",
      () => sql`UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ${at}) WHERE id = ${id}`).then(() => undefined),
    markHealthy: (id) => bounded(pg, "webhook endpoint healthy",
      () => sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${id} AND failing_since IS NOT NULL`).then(() => undefined),
  };
}
