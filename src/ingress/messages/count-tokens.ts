// POST /messages/count_tokens (docs/anthropic.md "count_tokens"): the prompt's tokens by gw's own
// counter (o200k_base with chat framing, analysis/tokens.ts), tool definitions and images included.
import { countMessageTokens, countTextTokens } from "../../analysis/tokens.ts";
import { promptOf } from "./request.ts";

/** About what Anthropic charges for an image near its 1.15-megapixel resize limit. */
const IMAGE_TOKENS = 1_600;

export function countTokens(raw: Record<string, unknown>): { input_tokens: number } {
  const { messages, tools } = promptOf(raw);
  let images = 0;
  for (const m of messages) {
    if (Array.isArray(m.content)) for (const part of m.content) if (part.type === "image_url") images++;
  }
  const toolTokens = tools.length > 0 ? countTextTokens(JSON.stringify(tools)) : 0;
  return { input_tokens: countMessageTokens(messages) + toolTokens + images * IMAGE_TOKENS };
}
