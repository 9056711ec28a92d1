// Stage optimize: the token engine's place in the pipeline (trace.optimization, docs/api.md "Request detail").
// No compression stage exists yet, so the request goes out as sent; the trace says so: the mode
// asked for (optimization.mode, default "off"), the input token bound before and after, no stages.
import type { Deps } from "../deps.ts";
import type { RequestState } from "../state.ts";

export function optimize(_deps: Deps, state: RequestState): void {
  const asked = state.options.optimization?.mode;
  state.optimization = {
    mode: typeof asked === "string" ? asked : "off",
    original_tokens: state.inputTokens,
    final_tokens: state.inputTokens,
    stages: [],
  };
}
