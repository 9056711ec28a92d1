// Idempotency-Key (docs/idempotency.md): key validation, the request
// fingerprint, the atomic claim, which results are kept, startup recovery and the expiry sweep.
// Knows nothing of HTTP frameworks; src/http/idempotent.ts drives it.
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import type { Deps } from "./deps.ts";
import { sha256Hex } from "../lib/hash.ts";
import { canonicalJson } from "../lib/json.ts";
import type { Logger } from "../observability/logger.ts";
import { systemClock, type Clock } from "../lib/clock.ts";
import type { IdempotencyResult, IdempotencyStore } from "../store/idempotency-store.ts";
import type { IdempotencyRecord, IdempotencyRepo } from "../store/repos/idempotency.ts";
import type { Endpoint } from "./state.ts";

export const IDEMPOTENCY_HEADER = "idempotency-key";
const KEY_MAX_LENGTH = 255;
/** Printable ASCII only: keys are compared byte for byte and echoed in logs. */
const KEY_PATTERN = /^[\x20-\x7e]+$/;
/** Rows deleted per sweep statement: short enough never to hold the write lock noticeably. */
const SWEEP_BATCH = 500;
const SWEEP_INTERVAL_MS = 60_000;

export function idempotencyKeyError(key: string): GwError | null {
  if (key.length >= 1 && key.length <= KEY_MAX_LENGTH && KEY_PATTERN.test(key)) return null;
  return invalidRequest(`Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} printable ASCII characters.`, "Idempotency-Key");
}

/** The endpoint, the key and its mode are part of it: the same body on /responses, with a test
 * key, or from another key of the project is a different request (422 idempotency_mismatch), so a
 * replay goes only to the key that stored it, and through that key's scopes and allowlist. So is
 * X-Gw-Cache-Scope (a caller's tenant inside the project): another scope never gets the stored
 * answer. Its line is added only when the header is sent (a header value holds no newline, and
 * the body's JSON starts with "{"), so fingerprints without a scope are unchanged. */
export const requestFingerprint = (endpoint: Endpoint, key: { id: string; mode: string }, body: unknown, scope: string | null = null): string =>
  sha256Hex(`${endpoint}\n${key.id}\n${key.mode}\n${scope === null ? "" : `scope:${scope}\n`}${canonicalJson(body)}`);

export interface Claim {
  projectId: string;
  key: string;
  fingerprint: string;
  requestId: string;
}

export type ClaimDecision =
  | { kind: "run" }
  | { kind: "replay"; record: IdempotencyRecord }
  | { kind: "refused"; error: GwError };

const running = () =>
  new GwError("conflict", "A request with this Idempotency-Key is still running; retry once it has finished.", { param: "Idempotency-Key" });
const notKept = () =>
  new GwError("conflict", "The result of the request with this Idempotency-Key was not kept, so it cannot be replayed; send the request with a new Idempotency-Key.", { param: "Idempotency-Key" });
const mismatch = () =>
  new GwError("idempotency_mismatch", "This Idempotency-Key was already used with a different request (endpoint, body or API key); use a new key for a new request.", { param: "Idempotency-Key" });

/** One INSERT decides who runs; anyone else reads the row the winner left. */
export function claimKey(repo: IdempotencyRepo, claim: Claim, now: number, ttlMs: number): ClaimDecision {
  // Two tries: the row read after a lost claim may be swept (expired) in between by another process.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (repo.claim({ ...claim, now, expiresAt: now + ttlMs })) return { kind: "run" };
    const row = repo.get(claim.projectId, claim.key);
    if (row !== null) return lost(claim, row);
  }
  return { kind: "refused", error: running() };
}

/** Multi-instance: the same decision on the shared store (Redis: one SET NX PX), so of instances
 * claiming one key at once exactly one runs. Rejects (a RedisFailure) when the store cannot answer. */
export async function claimKeyShared(store: IdempotencyStore, claim: Claim, now: number, ttlMs: number): Promise<ClaimDecision> {
  // Two tries: the record read after a lost claim may expire in between.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await store.claim({ ...claim, now, expiresAt: now + ttlMs })) return { kind: "run" };
    const row = await store.get(claim.projectId, claim.key);
    if (row !== null) return lost(claim, row);
  }
  return { kind: "refused", error: running() };
}

/** What a request that did not get the key answers, from the record the holder left. */
function lost(claim: Claim, row: IdempotencyRecord): ClaimDecision {
  if (row.fingerprint !== claim.fingerprint) return { kind: "refused", error: mismatch() };
  if (row.state === "running") return { kind: "refused", error: running() };
  if (row.state === "stored" && row.body !== null && row.status !== null) return { kind: "replay", record: row };
  return { kind: "refused", error: notKept() };
}

/** Error codes kept like a success: the request started executing and the same request would be
 * answered the same way (Stripe's rule). Validation errors, 409, 429 and 5xx are not: nothing was
 * produced or charged, and a retry may well succeed, so the key is released. */
const KEPT_ERRORS: ReadonlySet<string> = new Set([
  "blocked_by_policy", "budget_exceeded", "insufficient_credits", "plan_limit", "model_not_found",
]);

export function isKeptResult(status: number, errorCode: string | null): boolean {
  if (status >= 200 && status < 300) return true;
  return status >= 400 && status < 500 && errorCode !== null && KEPT_ERRORS.has(errorCode);
}

/** The `code` of an error envelope, or null when the body is not one. */
export function errorCodeOf(body: Uint8Array): string | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: unknown } };
    return typeof parsed?.error?.code === "string" ? parsed.error.code : null;
  } catch {
    return null;
  }
}

/** The headers a replay repeats: content type, Retry-After and gw's own, except the API version
 * (a replay carries the current one). */
export function headersToStore(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower === "x-gw-api-version") return;
    if (lower.startsWith("x-gw-") || lower === "content-type" || lower === "cache-control" || lower === "retry-after") kept[lower] = value;
  });
  return kept;
}

export type Settlement =
  | { kind: "result"; status: number; headers: Headers; body: Uint8Array }
  /** Output was produced (and billed) but cannot be replayed: a client that left mid-stream. */
  | { kind: "not_kept"; status: number | null }
  | { kind: "release" };

/** How a claim ends: deleted (a retry runs again) or finished with a result. */
function endOf(outcome: Settlement, mayKeep: (body: Uint8Array) => boolean, expiresAt: number): IdempotencyResult | null {
  if (outcome.kind === "release") return null;
  if (outcome.kind === "not_kept") return { state: "not_kept", status: outcome.status, headers: null, body: null, expiresAt };
  if (!isKeptResult(outcome.status, outcome.status >= 400 ? errorCodeOf(outcome.body) : null)) return null;
  // Retention keeps no content here (minimal, zero, or redacted with something sensitive): the key
  // keeps its fingerprint and status only, so a retry answers 409 "not kept".
  if (!mayKeep(outcome.body)) return { state: "not_kept", status: outcome.status, headers: null, body: null, expiresAt };
  return { state: "stored", status: outcome.status, headers: headersToStore(outcome.headers), body: outcome.body, expiresAt };
}

const NOT_STORED = "idempotency result not stored; releasing the key";

/** Ends a claim. Never throws: a storage failure must not fail a response already produced; the
 * key is then released if possible, so a retry runs instead of hitting a stuck claim. `mayKeep`
 * says whether the project's retention lets these bytes be kept (retention.ts mayKeepResult).
 * Multi-instance: a promise (never rejecting) that resolves once the shared store has it. */
export function settleClaim(deps: Deps, claim: Claim, mayKeep: (body: Uint8Array) => boolean, outcome: Settlement): void | Promise<void> {
  if (deps.shared !== null) return settleShared(deps, deps.shared.fast.idempotency, claim, mayKeep, outcome);
  const repo = deps.repos.idempotency;
  try {
    const result = endOf(outcome, mayKeep, deps.clock.now() + deps.config.idempotencyTtlMs);
    if (result === null) repo.release(claim.projectId, claim.key, claim.requestId);
    else repo.finish(claim.projectId, claim.key, claim.requestId, result);
  } catch (err) {
    deps.logger.error({ err, request_id: claim.requestId, project_id: claim.projectId }, NOT_STORED);
    try {
      repo.release(claim.projectId, claim.key, claim.requestId);
    } catch {
      // The store is unusable; the claim expires with its TTL.
    }
  }
}

async function settleShared(deps: Deps, store: IdempotencyStore, claim: Claim, mayKeep: (body: Uint8Array) => boolean, outcome: Settlement): Promise<void> {
  try {
    const result = endOf(outcome, mayKeep, deps.clock.now() + deps.config.idempotencyTtlMs);
    if (result === null) await store.release(claim.projectId, claim.key, claim.requestId);
    else await store.finish(claim.projectId, claim.key, claim.requestId, result);
  } catch (err) {
    deps.logger.error({ err, request_id: claim.requestId, project_id: claim.projectId }, NOT_STORED);
    // Unreachable too: the claim expires with its TTL (until then a retry answers 409).
    await Promise.resolve(store.release(claim.projectId, claim.key, claim.requestId)).catch(() => false);
  }
}

/** At startup: claims a previous process left running become not kept (409 from then on), since
 * their upstream call may have happened and been billed; running them again could bill twice. */
export function recoverInterruptedClaims(repo: IdempotencyRepo, logger: Logger): number {
  const count = repo.interruptRunning();
  if (count > 0) logger.warn({ count }, "idempotent requests interrupted by a restart are marked not kept");
  return count;
}

/** Deletes expired keys in small batches on an unref'd timer: a full batch is followed at once by
 * the next (after yielding to requests), otherwise the sweep waits for the next interval. */
export function startIdempotencySweeper(repo: IdempotencyRepo, logger: Logger, intervalMs = SWEEP_INTERVAL_MS, clock: Clock = systemClock): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  function tick(): void {
    let deleted = 0;
    try {
      deleted = repo.deleteExpired(clock.now(), SWEEP_BATCH);
    } catch (err) {
      logger.error({ err }, "idempotency sweep failed; will retry");
    }
    schedule(deleted === SWEEP_BATCH ? 0 : intervalMs);
  }
  schedule(intervalMs);
  return {
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}
