// Stage optimize: the token engine (docs/optimization.md) after the cache lookup, so the cache key is
// the caller's request, and before routing, whose window and max_cost checks then read the
// optimised count. Writes optimization (the trace) and, when a stage applied, request and inputTokens.
import { boundMessageTokens } from "../../analysis/tokens.ts";
import { optimizeRequest, stageContext } from "../../optimization/engine.ts";
import { optimizationOptionsOf } from "../../optimization/options.ts";
import { STAGES } from "../../optimization/stages/index.ts";
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

export function optimize(deps: Deps, state: RequestState): void {
  const req = need(state, "request");
  const options = state.optimizationOptions ?? optimizationOptionsOf(state.options.optimization, state.auth.rules.optimizationMode, req.messages.length);
  if (options.mode === "off") {
    // Nothing copied or counted: the trace holds the analysis' bound.
    state.optimization = { mode: "off", original_tokens: state.inputTokens, final_tokens: state.inputTokens, stages: [] };
    return;
  }
  const { request, trace } = optimizeRequest(req, stageContext(req, options, windowOf(deps.catalog, req.model)), STAGES);
  state.optimization = trace;
  if (request !== req) {
    state.callerRequest = req;
    state.request = request;
    state.inputTokens = boundMessageTokens(request.messages);
  }
}
