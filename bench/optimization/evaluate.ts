// The corpus through the token engine, one mode at a time: per case the exact tokens before and
// after, the checks of measure.ts, the trace, and the engine's time (docs/optimization.md "Evaluation").
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { optimizeRequest, stageContext } from "../../src/optimization/engine.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import { STAGES } from "../../src/optimization/stages/index.ts";
import type { OptimizationMode, OptimizationTrace } from "../../src/optimization/types.ts";
import type { OptCase } from "../../test/fixtures/optimization/corpus.ts";
import { checkCase, requestTexts, type Checks } from "./measure.ts";

type Tokenizer = typeof import("gpt-tokenizer");
const tokenizer = require("gpt-tokenizer") as Tokenizer;
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** o200k tokens of everything the model reads, counted whole (no sampling): OpenAI's framing of
 * 3 per message and 3 for the reply, the texts, and the tool definitions as JSON. */
export function exactTokens(req: ChatRequest): number {
  let n = 3;
  for (const m of req.messages) n += 3 + (m.name ? 1 : 0);
  for (const t of requestTexts(req)) n += tokenizer.countTokens(t, AS_TEXT);
  for (const m of req.messages) for (const c of m.tool_calls ?? []) n += tokenizer.countTokens(c.function.name, AS_TEXT);
  if (req.tools && req.tools.length > 0) n += tokenizer.countTokens(JSON.stringify(req.tools), AS_TEXT);
  return n;
}

/** gpt-4o's window: what the cases' model offers. */
export const DEFAULT_WINDOW = 128_000;

/** The engine as the pipeline's optimize stage runs it: options validated from the case's
 * `optimization` keys; mode off returns before any copy or count. */
export function optimizeCase(c: OptCase, mode: OptimizationMode, windowTokens = DEFAULT_WINDOW): { request: ChatRequest; trace: OptimizationTrace; ms: number } {
  const t0 = performance.now();
  const options = optimizationOptionsOf({ mode, ...c.options }, undefined, c.request.messages.length);
  if (options.mode === "off") return { request: c.request, trace: { mode: "off", original_tokens: 0, final_tokens: 0, stages: [] }, ms: performance.now() - t0 };
  const out = optimizeRequest(c.request, stageContext(c.request, options, windowTokens), STAGES);
  return { ...out, ms: performance.now() - t0 };
}

export interface CaseResult {
  id: string;
  type: OptCase["type"];
  before: number;
  after: number;
  checks: Checks;
  trace: OptimizationTrace;
  /** The engine's time over the repeats (each on a fresh copy, so no per-message memo helps). */
  ms: number[];
  /** trace.final_tokens = original_tokens minus every applied stage's saving. */
  traceAdds: boolean;
}

export function evaluateCase(c: OptCase, mode: OptimizationMode, repeats: number, windowTokens = DEFAULT_WINDOW): CaseResult {
  const ms: number[] = [];
  let last = optimizeCase(structuredClone(c), mode, windowTokens);
  for (let i = 0; i < repeats; i++) {
    const copy = structuredClone(c);
    last = optimizeCase(copy, mode, windowTokens);
    ms.push(last.ms);
  }
  const { request, trace } = last;
  const saved = trace.stages.reduce((s, st) => s + (st.applied ? st.before_tokens - st.after_tokens : 0), 0);
  return {
    id: c.id, type: c.type, before: exactTokens(c.request), after: exactTokens(request),
    checks: checkCase(c.request, request, c.gold), trace, ms, traceAdds: trace.final_tokens === trace.original_tokens - saved,
  };
}
