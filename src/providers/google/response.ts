// Reads a Gemini GenerateContentResponse into the canonical chat completion (pure): candidates[0]
// text and function calls, finish reason, usage; a blocked prompt is a content_filter failure.
import { isObject } from "../../lib/json.ts";
import { newCallId, newCompletionId } from "../../lib/ids.ts";
import type { ChatCompletion, Usage } from "../../canonical/completion.ts";
import type { ToolCall } from "../../canonical/chat.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import type { GeminiPart, GenerateContentResponse, UsageMetadata } from "./wire.ts";

/** Finish reasons that mean a filter withheld (part of) the answer. */
const FILTERED = new Set([
  "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR",
]);

/** OpenAI's finish_reason for Gemini's. Reasons OpenAI has no word for (OTHER, LANGUAGE,
 * MALFORMED_FUNCTION_CALL...) still ended the answer, so they read as a stop. */
export function mapFinishReason(reason: string, hasToolCalls: boolean): string {
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  return hasToolCalls ? "tool_calls" : "stop";
}

const count = (n: unknown): number => (typeof n === "number" && Number.isFinite(n) ? n : 0);

/** Canonical usage. Gemini's promptTokenCount already includes cachedContentTokenCount, and
 * candidatesTokenCount excludes thoughtsTokenCount, which is output billed like it. Tool-use
 * prompt tokens (built-in tools) are input the model read, so they count as prompt: the total then
 * equals Gemini's totalTokenCount. */
export function mapUsage(meta: UsageMetadata | undefined): Usage {
  const prompt = count(meta?.promptTokenCount) + count(meta?.toolUsePromptTokenCount);
  const reasoning = count(meta?.thoughtsTokenCount);
  const completion = count(meta?.candidatesTokenCount) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: count(meta?.cachedContentTokenCount) },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/** A whole Gemini function call as an OpenAI tool call. Its thoughtSignature is not passed on:
 * Google's OpenAI-compatible home for it (tool_calls[].extra_content) is a field OpenAI itself
 * rejects, and a gw conversation may continue on any provider; request.ts sends Gemini's
 * documented stand-in instead (and replays a signature a client did send). */
export function toToolCall(part: GeminiPart): ToolCall | null {
  const fc = part.functionCall;
  if (!isObject(fc) || typeof fc.name !== "string") return null;
  return {
    id: newCallId(),
    type: "function",
    function: { name: fc.name, arguments: JSON.stringify(isObject(fc.args) ? fc.args : {}) },
  };
}

/** Answer text: thought summaries are reasoning, not content. */
export const answerText = (part: GeminiPart): string =>
  part.thought !== true && typeof part.text === "string" ? part.text : "";

export function promptBlocked(body: GenerateContentResponse): UpstreamFailure | null {
  const reason = body.promptFeedback?.blockReason;
  if (typeof reason !== "string" || (body.candidates?.length ?? 0) > 0) return null;
  return new UpstreamFailure({ failureClass: "content_filter", message: `Gemini blocked the prompt (${reason}).`, upstreamStatus: 200 });
}


/** A 2xx body Gemini should not have sent. */
export const unexpected = (what: string): UpstreamFailure =>
  UpstreamFailure.badBody(`Gemini returned ${what}.`);

/** A 2xx body as a JSON object, or the failure that says it was not one. */
export function parseBody(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw unexpected("a body that is not JSON");
  }
  if (!isObject(body)) throw unexpected("an unexpected body");
  return body;
}

export function toChatCompletion(body: GenerateContentResponse, model: string): ChatCompletion {
  const blocked = promptBlocked(body);
  if (blocked) throw blocked;
  const candidate = body.candidates?.[0];
  if (!isObject(candidate)) throw unexpected("no candidate");
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (!isObject(part)) continue;
    text += answerText(part);
    const call = toToolCall(part);
    if (call) toolCalls.push(call);
  }
  const finish = mapFinishReason(candidate.finishReason ?? "STOP", toolCalls.length > 0);
  const plainEnd = finish === "stop" || finish === "length";
  const message: ChatCompletion["choices"][number]["message"] = {
    role: "assistant",
    content: text.length > 0 || (plainEnd && toolCalls.length === 0) ? text : null,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: newCompletionId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: mapUsage(body.usageMetadata),
  };
}

export function parseResponse(text: string, model: string): ChatCompletion {
  return toChatCompletion(parseBody(text) as GenerateContentResponse, model);
}
