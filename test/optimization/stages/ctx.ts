// The StageContext the stage tests run with: validated options with defaults, the real token
// counter (messages with chat framing, tools as their JSON), no untouchable messages unless given.
import { countMessageTokens, countTextTokens } from "../../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../../src/canonical/chat.ts";
import type { OptimizationOptions, StageContext } from "../../../src/optimization/types.ts";

export const countTokens = (req: ChatRequest): number =>
  countMessageTokens(req.messages) + (req.tools ? countTextTokens(JSON.stringify(req.tools)) : 0);

export function makeCtx(over: Partial<OptimizationOptions> = {}, rest: Partial<Omit<StageContext, "options">> = {}): StageContext {
  const options: OptimizationOptions = {
    mode: "balanced", preserve: [], do_not_compress: [], documents: [], fields: { keep: [], drop: [] }, ...over,
  };
  return { options, untouchable: new Set<number>(), windowTokens: null, countTokens, ...rest };
}

/** A deep copy to compare against after a stage ran: stages must never mutate their input. */
export const snapshot = <T>(value: T): T => structuredClone(value);
