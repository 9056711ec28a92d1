// The chat pipeline: the manifest of stages in order, and the runner that opens a span for each,
// records timings, and turns a thrown error into the span's status and the request's outcome.
//
//   authenticate  (http layer)  reads Authorization           -> auth          (span "authentication")
//   parse         body + headers, validated                   -> request, stream, tags, trace ids
//   guard         IP allowlists (403); PII and secrets per policy: texts redacted in place, or
//                 400 blocked_by_policy                       -> guard (counts and actions only)
//   analysis      input token bound, task                     -> inputTokens, task
//   rate_limit    rpm/tpm of project and key, tokens estimated -> x-ratelimit-* headers (429 when refused);
//                 only when the policy sets rate_limits; corrected when the request is recorded
//   cache-lookup  skip rules, keys; exact then semantic hit     -> cache; on a hit: selected, completion, usage
//                 (a hit skips route and call; the answer is still metered and recorded)
//   optimization  the token engine (none compresses yet)      -> optimization
//   routing       profile or model id -> ranked models        -> ranked, candidates, reason
//   reserve       worst-case charge of the first attempt held -> billing (402 plan_limit, budget_exceeded,
//                 insufficient_credits); only for projects with credit, budgets or an allowance to check
//   call          attempts with fallback, one llm span each   -> selected, attempts, completion|events
//   meter         usage -> cost and saved; settles the charge  -> cost, saved (0 and the full baseline on a hit), billing.charge
//   cache-store   a complete fresh answer, when allowed        -> cache.stored
//   record        request-log row + trace, queued; log line   (always runs, also on failure)
//
// Streams: call returns typed events; stream-out.ts taps them and runs meter and record at the end.
// The pipeline answers in chat's shape only: the answer, or the chat stream, and the gw object.
// An endpoint with another shape (/responses) decodes its body at the HTTP edge (state.decodeBody)
// and encodes the answer there.
import { toGwError, type GwError } from "../errors/gw-error.ts";
import type { Deps } from "./deps.ts";
import { fillMissingUsage } from "./estimate-usage.ts";
import { gwHeaders, gwObject, type GwObject } from "./gw-object.ts";
import { analyze } from "./stages/analyze.ts";
import { call } from "./stages/call.ts";
import { cacheLookup } from "./stages/cache-lookup.ts";
import { guard } from "./stages/guard.ts";
import { optimize } from "./stages/optimize.ts";
import { storeAnswer } from "./cache-store.ts";
import { cachedChunks } from "./cached-stream.ts";
import { meter } from "./stages/meter.ts";
import { parse } from "./stages/parse.ts";
import { record } from "./stages/record.ts";
import { route } from "./stages/route.ts";
import { reserve, reserveApplies } from "./stages/reserve.ts";
import { rateLimit, rateLimitApplies } from "./stages/rate-limit.ts";
import { need, settleDisconnected, type RequestState } from "./state.ts";
import type { ChatCompletion } from "../canonical/completion.ts";
import { streamOut, type OutEvent } from "./stream-out.ts";
import { round3 } from "../observability/trace.ts";
import { storageRefusal } from "./storage-gate.ts";

type Stage = (deps: Deps, state: RequestState) => void | Promise<void>;
/** A stage with nothing to do for a request is skipped: no span, no timing. */
type Applies = (deps: Deps, state: RequestState) => boolean;

const PRE_CALL: ReadonlyArray<readonly [string, Stage, Applies?]> = [
  ["parse", parse],
  ["guard", guard],
  ["analysis", analyze],
  ["rate_limit", rateLimit, rateLimitApplies],
  ["cache", cacheLookup],
  ["optimization", optimize],
  ["routing", route],
  ["reserve", reserve, reserveApplies],
  ["call", call],
];

export type ChatOutcome =
  | { kind: "json"; answer: ChatAnswer; headers: Record<string, string> }
  | { kind: "stream"; events: AsyncIterable<OutEvent>; headers: Record<string, string> }
  | { kind: "error"; error: GwError; headers: Record<string, string> };

/** A whole answer: the completion, the gw model id that answered it, and the gw object; the
 * HTTP edge writes it in its endpoint's shape. */
export interface ChatAnswer {
  completion: ChatCompletion;
  model: string;
  gw: GwObject;
}

/** Runs one stage in its span. Synchronous stages stay synchronous: no promise, and no other
 * request's work can run inside their span. */
function runStage(deps: Deps, state: RequestState, name: string, stage: Stage): void | Promise<void> {
  const start = state.spans.now();
  let pending: void | Promise<void>;
  try {
    pending = stage(deps, state);
  } catch (err) {
    throw stageFailed(state, name, start, err);
  }
  if (!(pending instanceof Promise)) return stageDone(state, name, start);
  return pending.then(
    () => stageDone(state, name, start),
    (err: unknown) => {
      throw stageFailed(state, name, start, err);
    },
  );
}

function stageDone(state: RequestState, name: string, start: number): void {
  // The call stage's time is in its llm spans; it gets a timing, not a span of its own.
  if (name === "call") state.spans.timings.call = round3(state.spans.now() - start);
  else state.spans.add(name, start, state.spans.now(), null);
}

function stageFailed(state: RequestState, name: string, start: number, err: unknown): GwError {
  const error = toGwError(err);
  if (name !== "call") state.spans.add(name, start, state.spans.now(), error.code);
  state.failedStep = name;
  return error;
}

function fail(deps: Deps, state: RequestState, err: unknown): ChatOutcome {
  const error = toGwError(err);
  if (error.code === "internal_error") deps.logger.error({ err: error.cause ?? err, request_id: state.requestId }, "pipeline failed");
  state.error = error;
  state.status = error.status;
  settleDisconnected(state); // a client that left: no error of anyone's (status 499)
  record(deps, state);
  return { kind: "error", error, headers: gwHeaders(state) };
}

export async function runChat(deps: Deps, state: RequestState): Promise<ChatOutcome> {
  // Fail closed before any stage: an answer gw cannot record is not given (storage-gate.ts).
  const refused = storageRefusal(deps, state);
  if (refused) return refused;
  try {
    for (const [name, stage, applies] of PRE_CALL) {
      if (applies && !applies(deps, state)) continue;
      const pending = runStage(deps, state, name, stage);
      if (pending) await pending;
      if (state.cache?.result === "hit") break;
    }
  } catch (err) {
    return fail(deps, state, err);
  }
  if (state.stream) {
    // A cached answer streams as the chunks a provider would have sent.
    const events = state.events ?? cachedChunks(need(state, "completion"));
    return { kind: "stream", events: streamOut(deps, state, events), headers: gwHeaders(state) };
  }
  const completion = need(state, "completion");
  fillMissingUsage(state, completion);
  meter(deps, state);
  storeAnswer(deps, state, completion);
  record(deps, state);
  const answer: ChatAnswer = { completion, model: need(state, "selected").id, gw: gwObject(state) };
  return { kind: "json", answer, headers: gwHeaders(state) };
}
