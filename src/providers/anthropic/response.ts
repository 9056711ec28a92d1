// Reads an Anthropic Message (POST /v1/messages, non-streaming) into the canonical chat
// completion (pure). Usage follows the canonical convention of canonical/completion.ts.
import { isObject, type JsonObject } from "../../lib/json.ts";
import type { ChatCompletion, Usage } from "../../canonical/completion.ts";
import type { ToolCall } from "../../canonical/chat.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Anthropic's input_tokens excludes cache reads and cache writes; canonical prompt_tokens counts
 * every input token, with reads and writes broken out for pricing (routing/cost.ts). */
export function toUsage(usage: unknown): Usage {
  const u = isObject(usage) ? usage : {};
  const cacheRead = count(u.cache_read_input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens);
  const prompt = count(u.input_tokens) + cacheRead + cacheWrite;
  const completion = count(u.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
  };
}

export function finishReason(stopReason: unknown): string {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default: // end_turn, stop_sequence, pause_turn
      return "stop";
  }
}

/** OpenAI-style id that keeps Anthropic's own (msg_...) for support lookups; the same for whole and
 * streamed answers. */
export const completionId = (messageId: unknown): string =>
  `chatcmpl-${typeof messageId === "string" && messageId ? messageId : "anthropic"}`;

export function toCompletion(message: JsonObject, fallbackModel: string, now = Date.now()): ChatCompletion {
  let text: string | null = null;
  const toolCalls: ToolCall[] = [];
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") text = (text ?? "") + block.text;
    else if (block.type === "tool_use" && typeof block.name === "string") {
      const id = typeof block.id === "string" ? block.id : `toolu_${toolCalls.length}`;
      toolCalls.push({ id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } // thinking blocks are not part of the OpenAI answer
  }
  const msg: ChatCompletion["choices"][number]["message"] = { role: "assistant", content: text, refusal: null };
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  return {
    id: completionId(message.id),
    object: "chat.completion",
    created: Math.floor(now / 1000),
    model: typeof message.model === "string" ? message.model : fallbackModel,
    choices: [{ index: 0, message: msg, finish_reason: finishReason(message.stop_reason), logprobs: null }],
    usage: toUsage(message.usage),
  };
}

export function parseResponse(text: string, provider: string, fallbackModel: string): ChatCompletion {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw UpstreamFailure.badBody(`${provider} returned a body that is not JSON.`);
  }
  if (!isObject(body) || body.type !== "message" || !Array.isArray(body.content)) {
    throw UpstreamFailure.badBody(`${provider} returned an unexpected body.`);
  }
  return toCompletion(body, fallbackModel);
}
