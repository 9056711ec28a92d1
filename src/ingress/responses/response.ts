// The chat pipeline's answer as a Responses object (docs/api.md "Responses"): `resp_` id, output items
// (`message` with `output_text` parts, `function_call` with the upstream's call id), usage in the
// Responses names, and the `gw` object. Shared by the JSON answer and the stream's lifecycle events.
import type { RequestState } from "../../pipeline/state.ts";
import type { ChatCompletion, Usage } from "../../canonical/completion.ts";
import { instructionsOf } from "./request.ts";

export interface OutputText { type: "output_text"; text: string; annotations: unknown[] }
export interface MessageItem {
  type: "message"; id: string; status: "in_progress" | "completed" | "incomplete"; role: "assistant";
  content: Array<OutputText | { type: "refusal"; refusal: string }>;
}
export interface FunctionCallItem {
  type: "function_call"; id: string; call_id: string; name: string; arguments: string; status: "in_progress" | "completed" | "incomplete";
}
export type OutputItem = MessageItem | FunctionCallItem;

/** req_<id> -> resp_<id>, msg_<id>, fc_<id>_<n>: one suffix ties a response to its log row. */
const suffixOf = (requestId: string): string => requestId.slice(requestId.indexOf("_") + 1);
export const responseIdOf = (requestId: string): string => `resp_${suffixOf(requestId)}`;
export const messageIdOf = (requestId: string): string => `msg_${suffixOf(requestId)}`;
export const functionCallIdOf = (requestId: string, n: number): string => `fc_${suffixOf(requestId)}_${n}`;

export function usageOf(usage: Usage | undefined) {
  return {
    input_tokens: usage?.prompt_tokens ?? 0,
    input_tokens_details: {
      cached_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: usage?.prompt_tokens_details?.cache_write_tokens ?? 0,
    },
    output_tokens: usage?.completion_tokens ?? 0,
    output_tokens_details: { reasoning_tokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage?.total_tokens ?? (usage ? usage.prompt_tokens + usage.completion_tokens : 0),
  };
}

/** finish_reason -> status and incomplete_details, as OpenAI reports a cut-off answer. */
export function statusOf(finishReason: string | null | undefined) {
  if (finishReason === "length") return { status: "incomplete" as const, incomplete_details: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete" as const, incomplete_details: { reason: "content_filter" } };
  return { status: "completed" as const, incomplete_details: null };
}

/** The fields every Responses object carries, in OpenAI's order, before output and usage. */
export function responseHead(state: RequestState, status: string) {
  const req = state.request;
  return {
    id: responseIdOf(state.requestId),
    object: "response",
    created_at: Math.floor(state.createdAt / 1000),
    status,
    error: null,
    incomplete_details: null as unknown,
    instructions: instructionsOf(req?.messages),
    max_output_tokens: req?.max_tokens ?? null,
    model: state.selected?.id ?? req?.model ?? null,
    parallel_tool_calls: req?.parallel_tool_calls !== false,
    temperature: req?.temperature ?? null,
    top_p: req?.top_p ?? null,
    tool_choice: req?.tool_choice ?? "auto",
    tools: (req?.tools ?? []).map((t) => ({ type: "function", name: t.function.name, description: t.function.description ?? null, parameters: t.function.parameters ?? null, strict: t.function.strict ?? null })),
    store: false,
  };
}

/** Output items of a finished answer: the message (when it has text or nothing else), then calls. */
export function outputOf(state: RequestState, completion: ChatCompletion): OutputItem[] {
  const choice = completion.choices[0];
  const message = choice?.message;
  const done = statusOf(choice?.finish_reason).status;
  const items: OutputItem[] = [];
  const calls = message?.tool_calls ?? [];
  if (message?.refusal) {
    items.push({ type: "message", id: messageIdOf(state.requestId), status: done, role: "assistant", content: [{ type: "refusal", refusal: message.refusal }] });
  } else if (message?.content || calls.length === 0) {
    items.push({ type: "message", id: messageIdOf(state.requestId), status: done, role: "assistant", content: [{ type: "output_text", text: message?.content ?? "", annotations: [] }] });
  }
  for (const [n, call] of calls.entries()) {
    items.push({ type: "function_call", id: functionCallIdOf(state.requestId, n), call_id: call.id, name: call.function.name, arguments: call.function.arguments, status: "completed" });
  }
  return items;
}

/** output_text: every output_text part of every message, joined (what the SDK computes too). */
export function outputTextOf(items: OutputItem[]): string {
  let text = "";
  for (const item of items) {
    if (item.type !== "message") continue;
    for (const part of item.content) if (part.type === "output_text") text += part.text;
  }
  return text;
}

/** The whole Responses object: the JSON answer, and the data of response.completed. */
export function fullResponse(state: RequestState, output: OutputItem[], finishReason: string | null | undefined, gw: Record<string, unknown>) {
  const { status, incomplete_details } = statusOf(finishReason);
  return {
    ...responseHead(state, status),
    incomplete_details,
    output,
    output_text: outputTextOf(output),
    usage: usageOf(state.usage),
    gw,
  };
}

export function responseBody(state: RequestState, completion: ChatCompletion, gw: Record<string, unknown>): string {
  return JSON.stringify(fullResponse(state, outputOf(state, completion), completion.choices[0]?.finish_reason, gw));
}
