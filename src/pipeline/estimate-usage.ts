// Usage counted by gw with gpt-tokenizer when an upstream reports none (issue 4 item 3): a stream
// without a usage chunk, or an answer whose usage is missing (adapters map it to zeros; no real
// answer has zero prompt tokens). Marked `usage_estimated` in the trace, never billed as $0.
import { countMessageTokens, countTextTokens } from "../analysis/tokens.ts";
import { RAW_BODY, type ChatCompletion, type Usage } from "../canonical/completion.ts";
import type { RequestState } from "./state.ts";

export function estimateUsage(state: RequestState, produced: string): Usage {
  const prompt = state.request ? countMessageTokens(state.request.messages) : 0;
  const completion = countTextTokens(produced);
  state.usageEstimated = true;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

const answerText = (c: ChatCompletion): string =>
  c.choices
    .map((ch) => (ch.message.content ?? "") + (ch.message.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join(""))
    .join("");

/** A non-streamed answer without usage gets an estimate, also in the body the client receives. */
export function fillMissingUsage(state: RequestState, completion: ChatCompletion): void {
  const u = completion.usage;
  if (u && (u.prompt_tokens > 0 || u.completion_tokens > 0)) return;
  completion.usage = estimateUsage(state, answerText(completion));
  // The upstream's own JSON has no usage to show: the answer is serialised from the object instead.
  delete completion[RAW_BODY];
}
