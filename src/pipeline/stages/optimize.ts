// Stage optimize: the token engine (docs/optimization.md) after the cache lookup, so the cache key is
// the caller's request, and before routing, whose window and max_cost checks then read the
// optimised count. Writes optimization (the trace) and, when a stage applied, request and inputTokens.
import { boundMessageTokens } from "../../analysis/tokens.ts";
import type { ChatRequest } from "../../canonical/chat.ts";
import { failedTrace, optimizeRequest, stageContext } from "../../optimization/engine.ts";
import { engineWorker } from "../../optimization/engine-worker.ts";
import { optimizationOptionsOf } from "../../optimization/options.ts";
import { STAGES } from "../../optimization/stages/index.ts";
import type { OptimizationTrace } from "../../optimization/types.ts";
import type { Catalog } from "../../routing/catalog.ts";
import type { Deps } from "../deps.ts";
import { need, type RequestState } from "../state.ts";

const largestWindow = new WeakMap<Catalog, number>();

/** The requested model's context window; for a profile the largest any model offers (routing
 * picks among them later); null when unknown. */
function windowOf(catalog: Catalog, model: string): number | null {
  const m = catalog.resolve(catalog.routed(model));
  if (m) return m.context_window > 0 ? m.context_window : null;
  let max = largestWindow.get(catalog);
  if (max === undefined) largestWindow.set(catalog, (max = catalog.models.reduce((n, x) => Math.max(n, x.context_window), 0)));
  return max > 0 ? max : null;
}

/** Requests whose byte bound reaches this go to the engine's worker (docs/optimization.md "Where it
 * runs"); smaller ones, a few hundred microseconds of work, stay on the request thread. */
export const WORKER_MIN_TOKENS = 4_096;

export function optimize(deps: Deps, state: RequestState): void | Promise<void> {
  const req = need(state, "request");
  const options = state.optimizationOptions ?? optimizationOptionsOf(state.options.optimization, state.auth.rules.optimizationMode, req.messages.length);
  if (options.mode === "off") {
    // Nothing copied or counted: the trace holds the analysis' bound.
    state.optimization = { mode: "off", original_tokens: state.inputTokens, final_tokens: state.inputTokens, stages: [] };
    return;
  }
  const window = windowOf(deps.catalog, req.model);
  if (state.inputTokens < WORKER_MIN_TOKENS) {
    const { request, trace } = optimizeRequest(req, stageContext(req, options, window), STAGES);
    return settle(state, req, request, trace);
  }
  const bound = state.inputTokens;
  return engineWorker().optimize(req, options, window).then((out) => {
    // A failed or late run leaves the request as it came (never a 5xx): the stages say "error".
    if (out.ok) settle(state, req, out.request ?? req, out.trace);
    else settle(state, req, req, failedTrace(options.mode, bound, STAGES));
  });
}

function settle(state: RequestState, req: ChatRequest, request: ChatRequest, trace: OptimizationTrace): void {
  state.optimization = trace;
  if (request !== req) {
    state.callerRequest = req;
    state.request = request;
    state.inputTokens = boundMessageTokens(request.messages);
  }
}
