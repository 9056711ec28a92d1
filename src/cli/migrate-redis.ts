// Idempotency results in the multi-instance mode live in Redis (docs/idempotency.md): with
// GW_REDIS_URL set, `gw migrate-to-postgres` also puts each one still valid there, so a replay sent
// after the move is answered from it rather than run again.
import { RedisClient } from "bun";
import type { Database } from "bun:sqlite";
import { RedisIdempotencyStore } from "../store/redis/idempotency.ts";
import type { IdempotencyState } from "../store/repos/idempotency.ts";

interface Row {
  project_id: string; key: string; fingerprint: string; request_id: string; state: IdempotencyState;
  status: number | null; headers: string | null; body: Uint8Array | null; created_at: number; expires_at: number;
}

/** Returns how many results were put; a key Redis already holds is left as it is. */
export async function seedIdempotency(db: Database, redisUrl: string, now: number): Promise<number> {
  const client = new RedisClient(redisUrl, { connectionTimeout: 5_000, autoReconnect: false, enableOfflineQueue: false });
  try {
    await client.connect();
    // The instances' default key prefix (src/store/redis/stores.ts).
    const store = new RedisIdempotencyStore(client, { now: () => now, timeoutMs: 5_000 });
    let seeded = 0;
    const rows = db.query<Row, [number]>(`SELECT project_id, key, fingerprint, request_id,
      CASE state WHEN 'running' THEN 'not_kept' ELSE state END AS state, status, headers, body, created_at, expires_at
      FROM idempotency_keys WHERE expires_at > ? ORDER BY project_id, key`);
    for (const r of rows.iterate(now)) {
      // Claimed as at its creation (kept as the record's), then finished with the result and the
      // time it has left.
      const claimed = await store.claim({ projectId: r.project_id, key: r.key, fingerprint: r.fingerprint, requestId: r.request_id, now: r.created_at, expiresAt: r.expires_at });
      if (!claimed) continue;
      const headers = r.headers === null ? null : (JSON.parse(r.headers) as Record<string, string>);
      const body = r.body === null ? null : typeof r.body === "string" ? new TextEncoder().encode(r.body) : r.body;
      if (await store.finish(r.project_id, r.key, r.request_id, { state: r.state === "stored" ? "stored" : "not_kept", status: r.status, headers, body, expiresAt: r.expires_at })) seeded++;
    }
    return seeded;
  } finally {
    client.close();
  }
}
