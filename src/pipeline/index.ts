// The chat pipeline: its manifest of stages in order, run by runner.ts (a span per stage), and the
// tail every request ends with (finish.ts: meter, cache-store, record, each timed).
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
//   optimization  the token engine: the request sent upstream -> optimization; request, inputTokens when applied
//   routing       profile or model id -> ranked models        -> ranked, candidates, reason
//   reserve       worst-case charge of the first attempt held -> billing (402 plan_limit, budget_exceeded,
//                 insufficient_credits); only for projects with credit, budgets or an allowance to check
//   call          attempts with fallback, one llm span each   -> selected, attempts, completion|events
//   meter         usage -> cost and saved; settles the charge  -> cost, saved (0 and the full baseline on a hit), billing.charge
//   cache-store   a complete fresh answer, when allowed        -> cache.stored
//   record        request-log row + trace, queued; log line   (always runs, also on failure)
//
// Streams: call returns typed events; stream-out.ts taps them and runs the tail at their end.
// The pipeline answers in chat's shape only: the answer, or the chat stream, and the gw object.
// An endpoint with another shape (/responses) decodes its body at the HTTP edge (state.decodeBody)
// and encodes the answer there.
import type { Deps } from "./deps.ts";
import { fillMissingUsage } from "./estimate-usage.ts";
import { gwHeaders, gwObject, type GwObject } from "./gw-object.ts";
import { analyze } from "./stages/analyze.ts";
import { call } from "./stages/call.ts";
import { cacheLookup } from "./stages/cache-lookup.ts";
import { guard } from "./stages/guard.ts";
import { optimize } from "./stages/optimize.ts";
import { cachedChunks } from "./cached-stream.ts";
import { finish } from "./finish.ts";
import { parse } from "./stages/parse.ts";
import { route } from "./stages/route.ts";
import { reserve, reserveApplies } from "./stages/reserve.ts";
import { rateLimit, rateLimitApplies } from "./stages/rate-limit.ts";
import { runManifest, type Failed, type Manifest } from "./runner.ts";
import { need, type RequestState } from "./state.ts";
import type { ChatCompletion } from "../canonical/completion.ts";
import { streamOut, type OutEvent } from "./stream-out.ts";

const CHAT: Manifest<RequestState> = [
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

/** A cache hit answers the request: route, reserve and call are skipped. */
const answeredFromCache = (state: RequestState): boolean => state.cache?.result === "hit";

export type ChatOutcome =
  | { kind: "json"; answer: ChatAnswer; headers: Record<string, string> }
  | { kind: "stream"; events: AsyncIterable<OutEvent>; headers: Record<string, string> }
  | Failed;

/** A whole answer: the completion, the gw model id that answered it, and the gw object; the
 * HTTP edge writes it in its endpoint's shape. */
export interface ChatAnswer {
  completion: ChatCompletion;
  model: string;
  gw: GwObject;
}

export async function runChat(deps: Deps, state: RequestState): Promise<ChatOutcome> {
  let failed = runManifest(deps, state, CHAT, answeredFromCache);
  if (failed instanceof Promise) failed = await failed;
  if (failed) return failed;
  if (state.stream) {
    // A cached answer streams as the chunks a provider would have sent; the tail runs at its end.
    const events = state.events ?? cachedChunks(need(state, "completion"));
    return { kind: "stream", events: streamOut(deps, state, events), headers: gwHeaders(state) };
  }
  const completion = need(state, "completion");
  fillMissingUsage(state, completion);
  const tail = finish(deps, state, { meter: true, store: completion });
  if (tail) await tail;
  const answer: ChatAnswer = { completion, model: need(state, "selected").id, gw: gwObject(state) };
  return { kind: "json", answer, headers: gwHeaders(state) };
}
