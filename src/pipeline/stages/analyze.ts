// Stage analyze: bounds input tokens (strict bound, see tokens.ts) and analyses the content (task,
// workload, language, complexity, live-data and personal flags, entities; analysis/analyzer.ts).
// Writes inputTokens, task and analysis.
import { analyzeRequest } from "../../analysis/analyzer.ts";
import { boundMessageTokens } from "../../analysis/tokens.ts";
import type { Deps } from "../deps.ts";
import { need, type RequestState } from "../state.ts";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function analyze(_deps: Deps, state: RequestState): void {
  const req = need(state, "request");
  state.inputTokens = boundMessageTokens(req.messages);
  const metadata = (req.metadata && typeof req.metadata === "object" ? req.metadata : {}) as Record<string, unknown>;
  const analysis = analyzeRequest(req, {
    task: str(metadata.task), priority: str(metadata.priority), customerTier: str(metadata.customer_tier),
    inputTokensBound: state.inputTokens,
  });
  state.analysis = analysis;
  state.task = { task: analysis.task, subtype: analysis.subtype, source: analysis.source };
}
