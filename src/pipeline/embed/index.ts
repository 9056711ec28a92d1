// The embeddings pipeline (docs/api.md "Embeddings"): a shorter manifest than chat's, run by the same
// runner and ending in the same tail, so embeddings are metered, logged and traced the same way.
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
import type { Deps } from "../deps.ts";
import { finish } from "../finish.ts";
import { gwHeaders, gwObject } from "../gw-object.ts";
import { runManifest, type Failed, type Manifest } from "../runner.ts";
import { need, type RequestState } from "../state.ts";
import { callEmbeddings } from "./call.ts";
import { toEmbedState, type EmbedState } from "./embed-state.ts";
import { embeddingsBody } from "./embeddings-body.ts";
import { parseEmbeddings } from "./parse.ts";
import { routeEmbeddings } from "./route.ts";
import { guard } from "../stages/guard.ts";
import { reserveApplies, reserveEmbeddings } from "../stages/reserve.ts";
import { rateLimitApplies, rateLimitEmbeddings } from "../stages/rate-limit.ts";

const EMBEDDINGS: Manifest<EmbedState> = [
  ["parse", parseEmbeddings],
  ["guard", guard],
  ["rate_limit", rateLimitEmbeddings, rateLimitApplies],
  ["routing", routeEmbeddings],
  ["reserve", reserveEmbeddings, reserveApplies],
  ["call", callEmbeddings],
];

export type EmbedOutcome =
  | { kind: "json"; status: number; body: string; headers: Record<string, string> }
  | Failed;

export async function runEmbeddings(deps: Deps, base: RequestState): Promise<EmbedOutcome> {
  const state = toEmbedState(base);
  let failed = runManifest(deps, state, EMBEDDINGS);
  if (failed instanceof Promise) failed = await failed;
  if (failed) return failed;
  // Test-mode embeddings cost nothing (docs/api.md "Embeddings"), unlike test chat answers, which
  // show the selected model's price so cost tracking can be tried out (docs/decisions.md).
  const tail = finish(deps, state, { meter: !state.auth.test });
  if (tail) await tail;
  const body = embeddingsBody(need(state.embed, "result"), need(state, "selected").id, state.embed.encoding, gwObject(state));
  return { kind: "json", status: 200, body, headers: gwHeaders(state) };
}
