// Idempotency-Key on the three POST endpoints (docs/idempotency.md): claims
// the key, replays stored results, and stores new ones when the response completes (streams:
// the exact SSE bytes, tapped on their way out). The logic lives in pipeline/idempotency.ts.
import type { AuthContext } from "../auth/api-keys.ts";
import { API_VERSION } from "../config/constants.ts";
import type { Deps } from "../pipeline/deps.ts";
import { GwError, storageUnavailable, toGwError } from "../errors/gw-error.ts";
import { newTraceId } from "../lib/ids.ts";
import { SpanRecorder } from "../observability/trace.ts";
import {
  claimKey, claimKeyShared, IDEMPOTENCY_HEADER, idempotencyKeyError, requestFingerprint, settleClaim, type Claim,
} from "../pipeline/idempotency.ts";
import { keepsContent, mayKeepResult } from "../pipeline/retention.ts";
import { finish } from "../pipeline/finish.ts";
import { newState, type Endpoint } from "../pipeline/state.ts";
import { readBodyText } from "../schema/validate.ts";
import type { IdempotencyRecord } from "../store/repos/idempotency.ts";
import { errorResponse } from "./context.ts";
import { tapStream } from "./idempotent-stream.ts";

export interface IdempotentContext {
  request: Request;
  requestId: string;
  auth: AuthContext;
  /** The IP allowlists' refusal (http/auth.ts): such a caller never reaches a lookup. */
  addressRefusal: GwError | null;
}

type Run = (bodyText: string | undefined) => Promise<Response>;

/** Runs `run` under the request's Idempotency-Key, if it has one. `run` receives the body text
 * when this layer had to read it (to hash it), else undefined (the pipeline reads it).
 * Not async: without the header, run's own promise is returned with no wrapper. */
export function withIdempotency(deps: Deps, ctx: IdempotentContext, endpoint: Endpoint, run: Run): Promise<Response> {
  const key = ctx.request.headers.get(IDEMPOTENCY_HEADER);
  // A caller outside the allowlists never reaches a lookup (it could learn that a key exists):
  // the pipeline refuses it, logged, before reading any idempotency state.
  if (key === null || ctx.addressRefusal) return run(undefined);
  return runIdempotent(deps, ctx, endpoint, key, run);
}

async function runIdempotent(deps: Deps, ctx: IdempotentContext, endpoint: Endpoint, key: string, run: Run): Promise<Response> {
  const t0 = performance.now();
  const invalid = idempotencyKeyError(key);
  if (invalid) return refuse(deps, ctx, endpoint, t0, invalid, undefined);
  let bodyText: string;
  try {
    bodyText = await readBodyText(ctx.request);
  } catch (err) {
    return refuse(deps, ctx, endpoint, t0, toGwError(err), undefined);
  }
  const body = parseJson(bodyText);
  // Not JSON: the pipeline answers 400, and a request that can never run claims no key.
  if (body === undefined) return run(bodyText);

  // Storage that cannot record requests (docs/availability.md "Storage"): the pipeline answers
  // 503 before anything runs, and no key is claimed for a request that did not run.
  if (!deps.storage.healthy) return run(bodyText);
  const { auth, requestId } = ctx;
  const claim: Claim = { projectId: auth.project.id, key, fingerprint: requestFingerprint(endpoint, auth.key, body, ctx.request.headers.get("x-gw-cache-scope")), requestId };
  let decision: ReturnType<typeof claimKey>;
  try {
    // Multi-instance: the claim is the shared store's (Redis), so two instances never both run it.
    decision = deps.shared === null
      ? claimKey(deps.repos.idempotency, claim, deps.clock.now(), deps.config.idempotencyTtlMs)
      : await claimKeyShared(deps.shared.fast.idempotency, claim, deps.clock.now(), deps.config.idempotencyTtlMs);
  } catch (err) {
    // The claim could not be written (a full or failing disk, Redis unreachable): nothing ran, so
    // a retry may. Never run unprotected: the caller sent the key to be sure it runs at most once.
    deps.logger.error({ err, request_id: requestId }, "idempotency claim not written");
    return refuse(deps, ctx, endpoint, t0, deps.shared === null ? storageUnavailable() : claimsUnavailable(), body);
  }
  if (decision.kind === "refused") return refuse(deps, ctx, endpoint, t0, decision.error, body);
  if (decision.kind === "replay") {
    // A replay is not a new request: no log row, and never any content in this line.
    deps.logger.debug({ request_id: requestId, replay_of: decision.record.requestId, project_id: auth.project.id }, "idempotent replay");
    return replay(decision.record);
  }
  return execute(deps, ctx, claim, body, bodyText, run);
}

async function execute(deps: Deps, ctx: IdempotentContext, claim: Claim, body: unknown, bodyText: string, run: Run): Promise<Response> {
  // Retention (docs/retention.md): whether the result's bytes may be kept; a stream's bytes are
  // not even collected when the mode keeps no content.
  const retention = ctx.auth.rules.retention;
  const mayKeep = (bytes: Uint8Array) => mayKeepResult(retention, body, bytes);
  let res: Response;
  let bytes: Uint8Array | null = null;
  try {
    res = await run(bodyText);
    if (isEventStream(res)) {
      const { status, headers } = res;
      return tapStream(res, ctx.request.signal, keepsContent(retention), (sent) =>
        settleClaim(deps, claim, mayKeep, sent === null ? { kind: "not_kept", status } : { kind: "result", status, headers, body: sent }),
      );
    }
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    void settleClaim(deps, claim, mayKeep, { kind: "release" });
    throw err;
  }
  // Stored before the answer leaves, so a retry that follows it is always a replay.
  const settled = settleClaim(deps, claim, mayKeep, { kind: "result", status: res.status, headers: res.headers, body: bytes });
  if (settled) await settled;
  return new Response(bytes, { status: res.status, headers: res.headers });
}

/** Multi-instance: Redis, which holds the claims, cannot be reached. */
const claimsUnavailable = (): GwError =>
  new GwError("service_unavailable", "Idempotency-Key cannot be honoured right now (the shared idempotency store is unreachable); nothing ran. Retry later.", { retryAfter: 1 });

const isEventStream = (res: Response): boolean =>
  res.body !== null && (res.headers.get("content-type") ?? "").startsWith("text/event-stream");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The stored answer byte for byte, under the original's request id and gw headers. */
function replay(stored: IdempotencyRecord): Response {
  const headers = { ...stored.headers, "x-gw-api-version": API_VERSION, "idempotent-replayed": "true" };
  return new Response(stored.body, { status: stored.status ?? 200, headers });
}

/** Refusals (bad key, 409, 422, 413) are requests that ran nothing, but they are logged and
 * counted like any failed request, under their CONFLICT / IDEMPOTENCY_MISMATCH categories. */
function refuse(deps: Deps, ctx: IdempotentContext, endpoint: Endpoint, t0: number, error: GwError, body: unknown): Response {
  const spans = new SpanRecorder(t0);
  const state = newState({ requestId: ctx.requestId, traceId: newTraceId(), parentSpanId: null, auth: ctx.auth, http: ctx.request, spans, t0, endpoint });
  spans.add("idempotency", 0, spans.now(), error.code);
  const fields = typeof body === "object" && body !== null ? (body as { model?: unknown; stream?: unknown }) : {};
  state.requestedModel = typeof fields.model === "string" ? fields.model : null;
  state.stream = fields.stream === true;
  state.error = error;
  state.status = error.status;
  state.failedStep = "idempotency";
  finish(deps, state, { meter: false });
  return errorResponse(error, ctx.requestId);
}
