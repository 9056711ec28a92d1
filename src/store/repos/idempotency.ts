// Idempotency keys (docs/idempotency.md): the claim, the stored result and the sweep of expired
// rows. Every statement takes the project id; writes after the claim also take the claiming
// request's id, so a request whose claim expired and was taken over can never overwrite the new one.
import type { Database } from "bun:sqlite";

export type IdempotencyState = "running" | "stored" | "not_kept";

export interface IdempotencyRecord {
  projectId: string;
  key: string;
  fingerprint: string;
  /** The request that claimed the key: the original of every replay. */
  requestId: string;
  state: IdempotencyState;
  status: number | null;
  headers: Record<string, string> | null;
  body: Uint8Array | null;
  createdAt: number;
  expiresAt: number;
}

export interface ClaimInput {
  projectId: string;
  key: string;
  fingerprint: string;
  requestId: string;
  now: number;
  expiresAt: number;
}

interface Row {
  project_id: string; key: string; fingerprint: string; request_id: string; state: string;
  status: number | null; headers: string | null; body: Uint8Array | null; created_at: number; expires_at: number;
}

const fromRow = (r: Row): IdempotencyRecord => ({
  projectId: r.project_id, key: r.key, fingerprint: r.fingerprint, requestId: r.request_id,
  state: r.state as IdempotencyState, status: r.status,
  headers: r.headers === null ? null : (JSON.parse(r.headers) as Record<string, string>),
  body: r.body, createdAt: r.created_at, expiresAt: r.expires_at,
});

export function idempotencyRepo(db: Database) {
  // One statement decides who runs: a new key is inserted, an expired one is taken over, a live
  // one is left alone (0 changes). SQLite serialises writers, also across processes.
  const claimStmt = db.query<unknown, [string, string, string, string, number, number]>(
    `INSERT INTO idempotency_keys (project_id, key, fingerprint, request_id, state, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'running', ?, ?)
     ON CONFLICT (project_id, key) DO UPDATE SET
       fingerprint = excluded.fingerprint, request_id = excluded.request_id, state = 'running',
       status = NULL, headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
     WHERE idempotency_keys.expires_at <= excluded.created_at`,
  );
  const getStmt = db.query<Row, [string, string]>("SELECT * FROM idempotency_keys WHERE project_id = ? AND key = ?");
  const finishStmt = db.query<unknown, [string, number | null, string | null, Uint8Array | null, number, string, string, string]>(
    `UPDATE idempotency_keys SET state = ?, status = ?, headers = ?, body = ?, expires_at = ?
     WHERE project_id = ? AND key = ? AND request_id = ? AND state = 'running'`,
  );
  const releaseStmt = db.query<unknown, [string, string, string]>(
    "DELETE FROM idempotency_keys WHERE project_id = ? AND key = ? AND request_id = ? AND state = 'running'",
  );
  const interruptStmt = db.query<unknown, []>(
    "UPDATE idempotency_keys SET state = 'not_kept' WHERE state = 'running'",
  );
  const sweepStmt = db.query<unknown, [number, number]>(
    `DELETE FROM idempotency_keys WHERE rowid IN
       (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`,
  );

  return {
    /** True when this request now holds the key (new, or taken over after expiry). */
    claim(c: ClaimInput): boolean {
      return claimStmt.run(c.projectId, c.key, c.fingerprint, c.requestId, c.now, c.expiresAt).changes > 0;
    },
    get(projectId: string, key: string): IdempotencyRecord | null {
      const row = getStmt.get(projectId, key);
      return row ? fromRow(row) : null;
    },
    /** Ends a running claim with a stored result (headers and body) or as not kept (both null). */
    finish(
      projectId: string, key: string, requestId: string,
      result: { state: "stored" | "not_kept"; status: number | null; headers: Record<string, string> | null; body: Uint8Array | null; expiresAt: number },
    ): boolean {
      const headers = result.headers === null ? null : JSON.stringify(result.headers);
      return finishStmt.run(result.state, result.status, headers, result.body, result.expiresAt, projectId, key, requestId).changes > 0;
    },
    /** Deletes a running claim, so a retry with the same key runs again. */
    release(projectId: string, key: string, requestId: string): boolean {
      return releaseStmt.run(projectId, key, requestId).changes > 0;
    },
    /** Every running claim becomes not kept; returns how many there were. */
    interruptRunning(): number {
      return interruptStmt.run().changes;
    },
    /** Deletes at most `limit` rows expired at `now`; returns how many. */
    deleteExpired(now: number, limit: number): number {
      return sweepStmt.run(now, limit).changes;
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof idempotencyRepo>;
