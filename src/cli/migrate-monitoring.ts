// The monitoring tables `gw migrate-to-postgres` copies (docs/scale-out.md): webhooks with their
// queue and deliveries, alert rules, incidents, status posts, and the model and status rollups, so
// they are there when those features run on PostgreSQL (until then the multi-instance mode refuses them).
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { big, BOOL, copy, text, type Reseal, type Row } from "./migrate-copy.ts";

const int = "integer";
const float = "double precision";
/** Histograms are the same bytes in both (src/lib/histogram.ts pairs); JSON carries them as base64. */
const BYTES: [string, string] = [text, "decode(r.latency, 'base64')"];
const base64 = (v: unknown): string => (v instanceof Uint8Array ? Buffer.from(v).toString("base64") : "");
/** USD floats in SQLite's rollups, nano-USD in PostgreSQL's. */
const nano = (v: unknown): number => Math.round(Number(v ?? 0) * 1e9);

export async function copyMonitoring(db: Database, tx: SQL, reseal: Reseal): Promise<Record<string, number>> {
  const sealed = (r: Row, column: "secret" | "previous_secret"): string | null =>
    r[column] === null ? null : reseal(String(r[column]), `the webhook ${column.replace("_", " ")} of endpoint ${String(r.id)}`);
  return {
    webhook_endpoints: await copy(db, tx, {
      table: "webhook_endpoints", select: "SELECT * FROM webhook_endpoints ORDER BY created_at, id",
      columns: {
        id: text, project_id: text, url: text, events: text, description: text, enabled: BOOL, secret: text, previous_secret: text,
        rotated_at: big, failing_since: big, disabled_reason: text, created_at: big, updated_at: big,
      },
      map: (r) => ({ ...r, secret: sealed(r, "secret"), previous_secret: sealed(r, "previous_secret") }),
    }),
    webhook_events: await copy(db, tx, {
      table: "webhook_events", select: "SELECT * FROM webhook_events ORDER BY created_at, id",
      columns: { id: text, project_id: text, type: text, natural_key: text, body: text, created_at: big },
    }),
    webhook_queue: await copy(db, tx, {
      table: "webhook_queue", select: "SELECT * FROM webhook_queue ORDER BY next_attempt_at",
      columns: { event_id: text, endpoint_id: text, attempt: int, next_attempt_at: big, created_at: big },
    }),
    webhook_deliveries: await copy(db, tx, {
      table: "webhook_deliveries", select: "SELECT * FROM webhook_deliveries ORDER BY id",
      columns: {
        id: text, event_id: text, endpoint_id: text, event_type: text, attempt: int, created_at: big, duration_ms: int,
        status_code: int, error: text, response_excerpt: text,
      },
    }),
    alert_rules: await copy(db, tx, {
      table: "alert_rules", select: "SELECT * FROM alert_rules ORDER BY created_at, id",
      columns: { id: text, project_id: text, rule: text, state: text, created_at: big, updated_at: big, deleted_at: big },
    }),
    incidents: await copy(db, tx, {
      table: "incidents", select: "SELECT * FROM incidents ORDER BY opened_at, id",
      columns: {
        id: text, project_id: text, rule_id: text, rule_name: text, component: text, severity: text, metric: text, threshold: float,
        window: text, status: text, opened_at: big, resolved_at: big, peak_value: float, last_value: float,
      },
    }),
    status_posts: await copy(db, tx, {
      table: "status_posts", select: "SELECT * FROM status_posts ORDER BY created_at, id",
      columns: {
        id: text, kind: text, name: text, status: text, impact: text, components: text, scheduled_for: big, scheduled_until: big,
        monitoring_at: big, resolved_at: big, created_at: big, updated_at: big,
      },
    }),
    status_updates: await copy(db, tx, {
      table: "status_updates", select: "SELECT * FROM status_updates ORDER BY created_at, id",
      columns: { id: text, post_id: text, status: text, body: text, created_at: big },
    }),
    model_rollups: await copy(db, tx, {
      table: "model_rollups", select: "SELECT * FROM model_rollups ORDER BY bucket_ms, start_ms",
      columns: {
        bucket_ms: big, start_ms: big, project_id: text, model: text, task: text, test: BOOL, requests: big, failed: big, cost: big,
        saved: big, cache_exact: big, cache_semantic: big, hit_saved: big, hit_input_tokens: big, hit_output_tokens: big, latency: BYTES,
      },
      map: (r) => ({ ...r, cost: nano(r.cost), saved: nano(r.saved), hit_saved: nano(r.hit_saved), latency: base64(r.latency) }),
    }),
    status_rollups: await copy(db, tx, {
      table: "status_rollups", select: "SELECT * FROM status_rollups ORDER BY component, bucket_ms, start_ms",
      columns: { bucket_ms: big, start_ms: big, component: text, requests: big, ok: big, latency: BYTES },
      map: (r) => ({ ...r, latency: base64(r.latency) }),
    }),
  };
}
