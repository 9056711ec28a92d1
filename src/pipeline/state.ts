// The request state: one typed slice per stage, written by that stage and read by later ones.

//   slice           added by               used by
//   RequestBase     http edge (newState)   every stage; the edge's in-flight tracking (cancel)
//   ParseSlice      parse                  every later stage; `stream` picks the tail
//   AnalyzeSlice    analyze                rate_limit, cache, optimize, route, reserve, cache-store, record
//   GuardSlice      guard                  record (trace.guard)
//   RateLimitSlice  rate_limit             gw headers (gw-object.ts), on answers and errors
//   CacheSlice      cache; cache-store     runner (a hit skips route and call), stream-out, meter, gw object, record
//   OptimizeSlice   optimize; meter        record (trace.optimization)
//   RouteSlice      route; call (health)   reserve, call, meter (profile), record
//   BillingSlice    reserve; meter         meter (settles), record (releases, trace.billing)
//   CallSlice       call; a cache hit      stream-out, meter, cache-store, gw object, record
//   MeterSlice      meter; stream-out      cache-store, gw object, record
//   OutcomeSlice    runner; stream-out     meter, cache-store, record
//
// Embeddings add their job (embed/embed-state.ts). A stage reads an earlier slice through need():
// a slice missing there is the manifest's bug, reported as an internal error that names it.
import type { AuthContext } from "../auth/api-keys.ts";
import { GwError } from "../errors/gw-error.ts";
import type { Reservation } from "../routing/workflow-budgets.ts";
import type { SpanRecorder } from "../observability/trace.ts";
import type { ChatCompletion, ChunkEvent, Usage } from "../canonical/completion.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import type { GwOptions } from "../schema/chat-completions.ts";
import type { FailureClass } from "../canonical/failure.ts";
import type { TestScenario } from "../providers/sandbox/scenarios.ts";
import type { CatalogModel } from "../routing/catalog-types.ts";
import type { ReasonNote } from "../store/trace-reasons.ts";
import type { Analysis } from "../analysis/analyzer.ts";
import type { SensitiveKind } from "../analysis/sensitive.ts";
import type { GuardReport } from "../guard/content-guard.ts";
import type { BillingState, BudgetRoom } from "../billing/holds.ts";
import type { OptimizationOptions, OptimizationTrace } from "../optimization/types.ts";

/** cache-lookup's classification, keys and result (trace.cache); `stored` is cache-store's. */
export interface CacheState {
  /** "hit", "miss", "skip" (a skip rule), "refresh" (cache.refresh: not read, stored) or "error". */
  result: "hit" | "miss" | "skip" | "refresh" | "error";
  kind: "exact" | "semantic" | null;
  similarity?: number;
  missReason: string | null;
  write: boolean;
  semantic: { eligible: boolean; reason: string | null };
  exactKey?: string;
  partition?: string;
  /** Set by cache-store: what was stored, or why a storable answer was not (retention redacted
   * and sensitive content: docs/retention.md). */
  stored?: { ttl_s: number; ttl_class: string; tags: string[] } | { skipped: "retention_redacted"; found: SensitiveKind };
}

/** What the trace's `detected` names: the task, its subtype, and who said so. */
export interface DetectedTask {
  task: string;
  subtype: string;
  source: "caller" | "detected";
}

export interface Attempt {
  model: string;
  provider: string;
  status: "ok" | "error";
  error_code: string | null;
  failure_class: FailureClass | null;
  upstream_status: number | null;
  duration_ms: number;
  /** Served with the project's own provider key; absent (not false) otherwise, to keep traces small. */
  byok?: boolean;
}

export interface Candidate {
  model: string;
  provider: string;
  rank: number | null;
  /** Routing score (profiles only); absent for excluded models. */
  score?: number;
  /** The model's quality for the task that counts, and whether it meets the required quality. */
  quality?: number;
  below_required_quality?: boolean;
  /** Why the model was left out; absent for the ranked candidates. */
  excluded?: string;
}

/** What the router expected of its first choice (trace.expected). */
export interface Expected {
  cost: number;
  latency_ms: number;
  quality: number;
}

/** The endpoint a request came through; /responses and /messages are codecs over the chat pipeline. */
export type Endpoint = "chat.completions" | "responses" | "messages" | "embeddings";

/** An endpoint's request body (validated by its own schema) as a chat body. */
export type BodyDecoder = (body: Record<string, unknown>) => Record<string, unknown>;

/** What the HTTP edge hands the pipeline, and the request's cancellation. */
export interface RequestBase {
  readonly requestId: string;
  readonly endpoint: Endpoint;
  readonly createdAt: number;
  readonly t0: number;
  readonly auth: AuthContext;
  readonly http: Request;
  readonly spans: SpanRecorder;
  /** Set when the client goes away (see cancel()); no further attempt starts. A flag, not an
   * AbortController: only the attempt under way has anything to abort. */
  cancelled: boolean;
  /** Who cancelled: the client that went away, or gw's shutdown after its grace period
   * (pipeline/in-flight.ts); the first reason wins. */
  cancelReason?: CancelReason;
  /** The controller of the upstream attempt under way. */
  attemptAbort?: AbortController;
  /** The body, when the HTTP layer already read it (an idempotent request hashes it first). */
  bodyText?: string;
  /** The endpoint's body codec, given by the HTTP edge: maps the parsed body to a chat body
   * before the chat rules are checked (/responses). The pipeline knows no other endpoint shape. */
  readonly decodeBody?: BodyDecoder;
  /** The IP allowlists' verdict, made once by the HTTP layer's auth check; the guard stage
   * answers it, so the refusal is a logged request with a guard span. */
  addressRefusal?: GwError | null;
}

/** parse: the validated request and what the log keeps of it. */
export interface ParseSlice {
  /** OpenAI's fields only: what the adapters receive. */
  request?: ChatRequest;
  /** gw's extension fields (docs/api.md "Extension fields"), taken out of the body at parse. */
  options: GwOptions;
  requestedModel: string | null;
  stream: boolean;
  tags: string[];
  workflowId: string | null;
  step: string | null;
  /** X-Gw-Session, metadata.session_id or gw.session_id (routing/sessions.ts). */
  sessionId: string | null;
  /** X-Gw-Trace-Id and X-Gw-Parent-Span, else gw's own trace id. */
  traceId: string;
  parentSpanId: string | null;
}

/** analyze: the input token bound and the content's analysis (entities never logged). */
export interface AnalyzeSlice {
  inputTokens: number;
  task?: DetectedTask;
  analysis?: Analysis;
}

/** guard: what the PII and secrets guard found and did (trace.guard): counts per kind and the
 * action, never a value; unset when nothing was found. */
export interface GuardSlice {
  guard?: GuardReport;
}

/** rate_limit: the x-ratelimit-* headers of the decision, for every response (gw-object.ts). */
export interface RateLimitSlice {
  rateLimitHeaders?: Record<string, string>;
}

/** optimize: trace.optimization (docs/optimization.md); meter adds `saved`, the USD the removed
 * tokens would have cost at the selected model's input price. */
export interface OptimizeSlice {
  /** The request's `optimization` options, validated at parse (a bad one is a 400 before any
   * other stage, a cache hit included). */
  optimizationOptions?: OptimizationOptions;
  optimization?: OptimizationTrace & { saved?: number };
  /** The caller's request when a stage changed it: what the cache stores as the question. */
  callerRequest?: ChatRequest;
}

/** cache-lookup (and cache-store): the classification, keys and result; trace.cache. */
export interface CacheSlice {
  cache?: CacheState;
}

/** route: the ranked models and why (trace.candidates, reasons, expected, session). */
export interface RouteSlice {
  scenario?: TestScenario;
  profile: string | null;
  workload?: string;
  requiredQuality?: number;
  weights?: { quality: number; cost: number; latency: number };
  expected?: Expected;
  ranked: CatalogModel[];
  /** The conversation this request belongs to, and what stickiness did (trace.session). */
  session?: { id: string; pinned: string | null; sticky: boolean; reason: string };
  /** Output tokens the router priced each model with (max_tokens, else the task's estimate). */
  outputBound?: number;
  /** budget_action downgrade: the tightest project budget's remainder (nano-USD); routing leaves
   * out models whose worst-case charge exceeds it. */
  budgetRoom?: BudgetRoom;
  /** gw.workflow_budget: the remainder when routed, and the open reservation of the attempt. */
  workflowBudget?: { budget: number; remaining: number; reservation?: Reservation };
  /** Models skipped because their circuit is open (trace.health); call adds to it. */
  healthSkipped?: Array<{ model: string; reason: string }>;
  /** Fallbacks worked out only when the first attempt fails (an explicit model's). */
  moreCandidates?: () => CatalogModel[];
  candidates: Candidate[];
  /** The decision as notes (required quality, weights, exclusions by reason, session), made
   * sentences only when the trace is read (store/trace-reasons.ts). */
  reasons?: ReasonNote[];
  reason: string | null;
}

/** reserve: the project's money (settled by meter, released by record). */
export interface BillingSlice {
  billing?: BillingState;
}

/** call (a cache hit writes selected, provider, completion too). */
export interface CallSlice {
  selected?: CatalogModel;
  provider: string | null;
  attempts: Attempt[];
  fallbacks: number;
  completion?: ChatCompletion;
  events?: AsyncIterable<ChunkEvent>;
  ttftMs: number | null;
  upstreamMs: number;
  /** The answer came through the project's own provider key (no markup; issue 4 item 7). */
  byok: boolean;
  /** Start of the streaming attempt, for its llm span. */
  llmStart?: number;
}

/** meter: usage (counted by gw when the upstream sent none), cost and saving. */
export interface MeterSlice {
  usage?: Usage;
  cost: number;
  saved: number;
  usageEstimated: boolean;
}

/** The outcome: status, the error and the stage that threw it (trace.error). */
export interface OutcomeSlice {
  status: number;
  error?: GwError;
  failedStep?: string;
  clientDisconnected: boolean;
}

export interface RequestState
  extends RequestBase, ParseSlice, AnalyzeSlice, GuardSlice, RateLimitSlice, OptimizeSlice, CacheSlice,
    RouteSlice, BillingSlice, CallSlice, MeterSlice, OutcomeSlice {}

export function newState(init: {
  requestId: string; traceId: string; parentSpanId: string | null; auth: AuthContext; http: Request;
  spans: SpanRecorder; t0: number; endpoint?: Endpoint; bodyText?: string; addressRefusal?: GwError | null;
  decodeBody?: BodyDecoder;
}): RequestState {
  return {
    ...init,
    endpoint: init.endpoint ?? "chat.completions",
    createdAt: Date.now(),
    cancelled: false,
    requestedModel: null,
    options: {},
    stream: false,
    tags: [],
    workflowId: null,
    step: null,
    sessionId: null,
    inputTokens: 0,
    profile: null,
    ranked: [],
    candidates: [],
    reason: null,
    provider: null,
    attempts: [],
    fallbacks: 0,
    ttftMs: null,
    upstreamMs: 0,
    byok: false,
    cost: 0,
    saved: 0,
    usageEstimated: false,
    clientDisconnected: false,
    status: 200,
  };
}

/** A slice a stage reads from an earlier one. Missing means the manifest ran out of order: an
 * internal error that names the slice, never a TypeError deep inside a stage. */
export function need<S extends object, K extends keyof S>(state: S, key: K): NonNullable<S[K]> {
  const value = state[key];
  if (value === undefined || value === null) {
    throw new GwError("internal_error", "The gateway failed to process the request.", { cause: new Error(`request state: '${String(key)}' not set yet`) });
  }
  return value;
}

/** The model routing put first (the one reserve holds for and an embeddings call uses). */
export function firstRanked(state: RouteSlice): CatalogModel {
  const model = state.ranked[0];
  if (!model) throw new GwError("internal_error", "The gateway failed to process the request.", { cause: new Error("request state: 'ranked' is empty") });
  return model;
}

export type CancelReason = "client" | "shutdown";

/** The client went away, or gw is stopping: mark the request (no further attempt starts) and
 * stop the upstream attempt under way. */
export function cancel(state: RequestState, reason: CancelReason = "client"): void {
  if (state.cancelled) return;
  state.cancelled = true;
  state.cancelReason = reason;
  if (reason === "client") state.clientDisconnected = true;
  state.attemptAbort?.abort();
}

/** Why no attempt (or no further one) ran for a cancelled request. A client that left is recorded
 * without an error (settleDisconnected in state.ts); a shutdown answers 503. */
export function cancelledError(state: RequestState): GwError {
  if (state.cancelReason === "shutdown") {
    return new GwError("service_unavailable", "The gateway is shutting down; the request was stopped. Retry it.");
  }
  return new GwError("service_unavailable", "The client closed the request; no further attempt was made.");
}

/** A request whose client left before its answer: nobody is there to answer, and it is no failure
 * of gw's or a provider's, so its log row has no error and status 499 (docs/availability.md). */
export function settleDisconnected(state: RequestState): boolean {
  if (state.cancelReason !== "client" || state.completion) return false;
  state.error = undefined;
  state.status = 499;
  return true;
}
