// The chat pipeline's answer as an Anthropic Message (docs/anthropic.md "Mapping"): `msg_` id, text
// and tool_use blocks, stop_reason, usage in Anthropic's names (cache reads and writes apart), and
// the `gw` object. Shared by the JSON answer and the stream's message_start and message_delta.
import type { RequestState } from "../../pipeline/state.ts";
import type { ChatCompletion, Usage } from "../../canonical/completion.ts";
import { toolInputOf } from "../../providers/anthropic/request.ts";

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

export type OutBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** req_<id> -> msg_<id>: one suffix ties a message to its log row. */
export const messageIdOf = (requestId: string): string => `msg_${requestId.slice(requestId.indexOf("_") + 1)}`;

/** Chat's finish_reason in Anthropic's terms. Chat does not say whether a stop sequence or the
 * model ended the turn, so "stop" is end_turn (docs/anthropic.md "Mapping"). */
export function stopReasonOf(finishReason: string | null | undefined): StopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

/** Anthropic's input_tokens excludes cache reads and writes; chat's prompt_tokens counts them. */
export function usageOf(usage: Usage | undefined) {
  const read = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const write = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: usage?.completion_tokens ?? 0,
  };
}

/** The model gw answered with (its id, not the upstream's), else the one asked for. */
export const modelOf = (state: RequestState): string => state.selected?.id ?? state.request?.model ?? state.requestedModel ?? "";

export function contentOf(completion: ChatCompletion): OutBlock[] {
  const message = completion.choices[0]?.message;
  const text = message?.refusal ?? message?.content ?? "";
  const calls = message?.tool_calls ?? [];
  const blocks: OutBlock[] = [];
  if (text || calls.length === 0) blocks.push({ type: "text", text });
  for (const call of calls) blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: toolInputOf(call.function.arguments) });
  return blocks;
}

export function messageBody(state: RequestState, completion: ChatCompletion, gw: Record<string, unknown>): string {
  return JSON.stringify({
    id: messageIdOf(state.requestId),
    type: "message",
    role: "assistant",
    model: modelOf(state),
    content: contentOf(completion),
    stop_reason: stopReasonOf(completion.choices[0]?.finish_reason),
    stop_sequence: null,
    usage: usageOf(state.usage ?? completion.usage),
    gw,
  });
}
