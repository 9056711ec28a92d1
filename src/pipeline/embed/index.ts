// The embeddings pipeline (gateway-api.md 4.6): a shorter manifest than chat's, sharing its state,
// spans, meter and record so embeddings are metered, logged and traced the same way.
//
//   authenticate  (http layer)  reads Authorization           -> auth              (span "authentication")
//   parse         body + trace headers, validated             -> embed job, requestedModel
//   rate_limit    as chat's, tokens bounded by the texts' bytes -> x-ratelimit-* (429); only with rate_limits
//   route         requested or default embedding model        -> ranked (one model), candidates
//   reserve       the input's worst-case charge held (402s)   -> billing; only with credit, budgets or an
//                 allowance to check (stages/reserve.ts)
//   call          that model, one retry when transient        -> selected, attempts, usage, result
//   meter         usage -> cost (saved 0: a model is its own baseline), charge; skipped for test keys
//   record        request-log row + trace, queued; no texts and no vectors in either
//
// No analyze (there is no task to detect) and no cache (its keys and policies are chat's).
import { toGwError, type GwError } from "../../errors/gw-error.ts";
import type { Deps } from "../deps.ts";
import { round3 } from "../../observability/trace.ts";
import { gwHeaders, gwObject } from "../gw-object.ts";
import { meter } from "../stages/meter.ts";
import { record } from "../stages/record.ts";
import { settleDisconnected, type RequestState } from "../state.ts";
import { callEmbeddings } from "./call.ts";
import { toEmbedState, type EmbedState } from "./embed-state.ts";
import { embeddingsBody } from "./embeddings-body.ts";
import { parseEmbeddings } from "./parse.ts";
import { routeEmbeddings } from "./route.ts";
import { guard } from "../stages/guard.ts";
import { reserveApplies, reserveEmbeddings } from "../stages/reserve.ts";
import { rateLimitApplies, rateLimitEmbeddings } from "../stages/rate-limit.ts";
import { storageRefusal } from "../storage-gate.ts";

type Stage = (deps: Deps, state: EmbedState) => void | Promise<void>;
/** As chat's runner: a stage with nothing to do for a request is skipped, span and all. */
type Applies = (deps: Deps, state: EmbedState) => boolean;

const STAGES: ReadonlyArray<readonly [string, Stage, Applies?]> = [
  ["parse", parseEmbeddings],
  ["guard", guard],
  ["rate_limit", rateLimitEmbeddings, rateLimitApplies],
  ["routing", routeEmbeddings],
  ["reserve", reserveEmbeddings, reserveApplies],
  ["call", callEmbeddings],
];

export type EmbedOutcome =
  | { kind: "json"; status: number; body: string; headers: Record<string, string> }
  | { kind: "error"; error: GwError; headers: Record<string, string> };

/** The chat runner's span rules (pipeline/index.ts), kept here in small: a span per stage, except
 * call, whose time is in its llm spans and gets a timing instead. */
async function runStage(deps: Deps, state: EmbedState, name: string, stage: Stage): Promise<void> {
  const start = state.spans.now();
  try {
    await stage(deps, state);
  } catch (err) {
    const error = toGwError(err);
    if (name !== "call") state.spans.add(name, start, state.spans.now(), error.code);
    state.failedStep = name;
    throw error;
  }
  if (name === "call") state.spans.timings.call = round3(state.spans.now() - start);
  else state.spans.add(name, start, state.spans.now(), null);
}

function fail(deps: Deps, state: EmbedState, err: unknown): EmbedOutcome {
  const error = toGwError(err);
  if (error.code === "internal_error") deps.logger.error({ err: error.cause ?? err, request_id: state.requestId }, "embeddings pipeline failed");
  state.error = error;
  state.status = error.status;
  settleDisconnected(state); // a client that left: no error of anyone's (status 499)
  record(deps, state);
  return { kind: "error", error, headers: gwHeaders(state) };
}

export async function runEmbeddings(deps: Deps, base: RequestState): Promise<EmbedOutcome> {
  const state = toEmbedState(base);
  // Fail closed before any stage: an answer gw cannot record is not given (storage-gate.ts).
  const refused = storageRefusal(deps, state);
  if (refused) return refused;
  try {
    for (const [name, stage, applies] of STAGES) if (!applies || applies(deps, state)) await runStage(deps, state, name, stage);
  } catch (err) {
    return fail(deps, state, err);
  }
  // Test-mode embeddings cost nothing (4.6), unlike test chat answers, which show the selected
  // model's price so cost tracking can be tried out (docs/decisions.md).
  if (!state.auth.test) meter(deps, state);
  record(deps, state);
  const body = embeddingsBody(state.embed.result!, state.selected!.id, state.embed.encoding, gwObject(state));
  return { kind: "json", status: 200, body, headers: gwHeaders(state) };
}
