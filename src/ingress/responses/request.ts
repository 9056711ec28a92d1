// The Responses request as a chat request: input items become messages (instructions, function
// calls and their outputs included), so every adapter sees one canonical shape; the extension
// fields pass through to the chat schema (docs/api.md "Responses", "Extension fields").
import { invalidRequest } from "../../errors/gw-error.ts";
import { compileValidator } from "../../schema/validate.ts";
import { INPUT_ITEM_KINDS, ResponsesBody, type InputItem, type InputPart } from "../../schema/responses.ts";
import type { ChatMessage, ContentPart, ToolCall } from "../../canonical/chat.ts";

const validateBody = compileValidator(ResponsesBody);
const validateItem = Object.fromEntries(Object.entries(INPUT_ITEM_KINDS).map(([kind, schema]) => [kind, compileValidator(schema)]));

/** Fields of the Responses API that need server-side state or tools gw does not have. */
const UNSUPPORTED: Record<string, string> = {
  previous_response_id: "gw does not store responses; send the whole conversation in 'input'.",
  conversation: "gw does not store conversations; send the whole conversation in 'input'.",
  prompt: "Stored prompts are not supported; send 'instructions' and 'input'.",
  background: "Background responses are not supported.",
};

/** Responses-only fields that must not reach the chat request (and its upstreams). */
const RESPONSES_ONLY = [
  "input", "instructions", "max_output_tokens", "tools", "tool_choice", "text", "store", "include",
  "reasoning", "truncation", "stream_options", "service_tier", "prompt_cache_key", "safety_identifier",
] as const;

function refuseUnsupported(raw: Record<string, unknown>): void {
  for (const [field, why] of Object.entries(UNSUPPORTED)) {
    if (raw[field] !== undefined && raw[field] !== null) throw invalidRequest(`'${field}' is not supported: ${why}`, field);
  }
  const tools = Array.isArray(raw.tools) ? raw.tools : [];
  for (const [i, tool] of tools.entries()) {
    const type = (tool as { type?: unknown } | null)?.type;
    if (type !== "function") {
      throw invalidRequest(`Only function tools are supported; tools[${i}] has type ${JSON.stringify(type)}.`, `tools[${i}].type`);
    }
  }
  const items = Array.isArray(raw.input) ? raw.input : [];
  for (const [i, item] of items.entries()) {
    const type = (item as { type?: unknown } | null)?.type ?? "message";
    const validate = typeof type === "string" ? validateItem[type] : undefined;
    if (!validate) {
      throw invalidRequest(
        `Input items of type ${JSON.stringify(type)} are not supported; use messages, function_call and function_call_output.`,
        `input[${i}].type`,
      );
    }
    validate(item, `input[${i}]`);
  }
}

function partOf(part: InputPart, param: string): ContentPart {
  if (part.type === "input_image") {
    if (!part.image_url) throw invalidRequest("Images need an 'image_url' (a URL or a data: URL); file ids are not supported.", `${param}.image_url`);
    return { type: "image_url", image_url: part.detail ? { url: part.image_url, detail: part.detail } : { url: part.image_url } };
  }
  if (part.type === "refusal") return { type: "text", text: part.refusal };
  return { type: "text", text: part.text };
}

/** Text-only content collapses to a string: what every adapter handles for every role. */
function contentOf(content: string | InputPart[], param: string): string | ContentPart[] {
  if (typeof content === "string") return content;
  const parts = content.map((p, i) => partOf(p, `${param}[${i}]`));
  return parts.every((p) => p.type === "text") ? parts.map((p) => p.text).join("") : parts;
}

/** The system messages made from `instructions`, so the answer can echo them (and only them). */
const fromInstructions = new WeakSet<ChatMessage>();

/** The request's `instructions`, as the Responses object echoes them. */
export function instructionsOf(messages: ChatMessage[] | undefined): string | null {
  const first = messages?.[0];
  return first && fromInstructions.has(first) ? (first.content as string) : null;
}

function messagesOf(input: string | InputItem[], instructions: string | null | undefined): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (instructions) {
    const system: ChatMessage = { role: "system", content: instructions };
    fromInstructions.add(system);
    messages.push(system);
  }
  if (typeof input === "string") return [...messages, { role: "user", content: input }];
  for (const [i, item] of input.entries()) {
    if (item.type === "reasoning") continue;
    if (item.type === "function_call") {
      const call: ToolCall = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      // Consecutive calls (parallel tool calls) belong to one assistant turn, with its text if any.
      const last = messages.at(-1);
      if (last?.role === "assistant") (last.tool_calls ??= []).push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
      continue;
    }
    if (item.type === "function_call_output") {
      const output = contentOf(item.output, `input[${i}].output`);
      if (typeof output !== "string") throw invalidRequest("Function call outputs may hold text only.", `input[${i}].output`);
      messages.push({ role: "tool", tool_call_id: item.call_id, content: output });
      continue;
    }
    const content = contentOf(item.content, `input[${i}].content`);
    if (item.role !== "user" && typeof content !== "string") {
      throw invalidRequest(`Only user messages may contain images.`, `input[${i}].content`);
    }
    messages.push({ role: item.role as ChatMessage["role"], content });
  }
  return messages;
}

function responseFormatOf(format: NonNullable<ResponsesBody["text"]>["format"]): Record<string, unknown> | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  const { name, schema, strict, description } = format as { name: string; schema: Record<string, unknown>; strict?: boolean | null; description?: string };
  return { type: "json_schema", json_schema: { name, schema, ...(strict != null ? { strict } : {}), ...(description ? { description } : {}) } };
}

function toolOf(tool: NonNullable<ResponsesBody["tools"]>[number]): Record<string, unknown> {
  if ("function" in tool) return tool;
  const { name, description, parameters, strict } = tool as { name: string; description?: string | null; parameters?: Record<string, unknown> | null; strict?: boolean | null };
  const fn: Record<string, unknown> = { name };
  if (description) fn.description = description;
  if (parameters) fn.parameters = parameters;
  if (strict != null) fn.strict = strict;
  return { type: "function", function: fn };
}

function toolChoiceOf(choice: ResponsesBody["tool_choice"]): unknown {
  if (choice === undefined || typeof choice === "string" || "function" in choice) return choice;
  return { type: "function", function: { name: (choice as { name: string }).name } };
}

/** The raw Responses body, validated, as the raw chat body the chat parse stage checks next. */
export function responsesToChatBody(raw: Record<string, unknown>): Record<string, unknown> {
  refuseUnsupported(raw);
  const body = validateBody(raw);
  const chat: Record<string, unknown> = { ...raw };
  for (const field of RESPONSES_ONLY) delete chat[field];
  chat.messages = messagesOf(body.input, body.instructions);
  if (body.max_output_tokens != null) chat.max_tokens = body.max_output_tokens;
  if (body.tools?.length) chat.tools = body.tools.map(toolOf);
  if (body.tool_choice !== undefined) chat.tool_choice = toolChoiceOf(body.tool_choice);
  const format = responseFormatOf(body.text?.format);
  if (format) chat.response_format = format;
  return chat;
}
