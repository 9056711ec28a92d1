// Idempotency claims behind one interface (docs/idempotency.md): the SQLite repo
// (store/repos/idempotency.ts, the single-node default) and the Redis locks (store/redis/idempotency.ts).
// On Redis every call is a promise that may reject with a RedisFailure (store/redis/redis-call.ts).
import type { ClaimInput, IdempotencyRecord } from "./repos/idempotency.ts";

export interface IdempotencyResult {
  state: "stored" | "not_kept";
  status: number | null;
  headers: Record<string, string> | null;
  body: Uint8Array | null;
  expiresAt: number;
}

type Maybe<T> = T | Promise<T>;

export interface IdempotencyStore {
  /** True when this request now holds the key (new, or taken over after expiry). */
  claim(c: ClaimInput): Maybe<boolean>;
  get(projectId: string, key: string): Maybe<IdempotencyRecord | null>;
  /** Ends the running claim of `requestId` with a result; false when it holds the key no more. */
  finish(projectId: string, key: string, requestId: string, result: IdempotencyResult): Maybe<boolean>;
  /** Deletes the running claim of `requestId`, so a retry with the same key runs again. */
  release(projectId: string, key: string, requestId: string): Maybe<boolean>;
}
