// Stage analyze: bounds input tokens (strict bound, see tokens.ts) and analyses the content (task,
// workload, language, complexity, live-data and personal flags, entities; analysis/analyzer.ts).
// Writes inputTokens, task and analysis.
import { analyzeRequest } from "../../analysis/analyzer.ts";
import { boundMessageTokens } from "../../analysis/tokens.ts";
import type { Deps } from "../deps.ts";
import { need, type RequestState } from "../state.ts";

export function analyze(_deps: Deps, state: RequestState): void {
  const req = need(state, "request");
  state.inputTokens = boundMessageTokens(req.messages);
  const metadata = state.options.metadata;
  const analysis = analyzeRequest(req, {
    task: metadata?.task, priority: metadata?.priority, customerTier: metadata?.customer_tier,
    inputTokensBound: state.inputTokens,
  });
  state.analysis = analysis;
  state.task = { task: analysis.task, subtype: analysis.subtype, source: analysis.source };
}
