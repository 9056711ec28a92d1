// The Anthropic Messages request as a chat request (docs/anthropic.md "Mapping"): system text, content
// blocks, tool_use and tool_result blocks, tools and tool_choice become chat's, so any routed model
// answers it; gw's extension fields pass through to the chat schema.
import { invalidRequest } from "../../errors/gw-error.ts";
import { compileValidator } from "../../schema/validate.ts";
import type { ChatMessage, ContentPart, ToolCall } from "../../canonical/chat.ts";
import {
  BLOCK_KINDS, CountTokensBody, MessagesBody, type Block, type ImageBlock, type TextBlock, type ToolResultBlock,
} from "./schema.ts";

const validateBody = compileValidator(MessagesBody);
const validatePrompt = compileValidator(CountTokensBody);
const validateBlock: Record<string, (value: unknown, at?: string) => unknown> =
  Object.fromEntries(Object.entries(BLOCK_KINDS).map(([kind, schema]) => [kind, compileValidator(schema)]));

/** gw's extension fields (docs/api.md "Extension fields"), read from the body as chat reads them. */
const GW_FIELDS = ["routing", "max_cost", "optimization", "tags", "cache", "gw"] as const;
/** OpenAI-format upstreams take at most four stop sequences, so gw does too. */
const MAX_STOPS = 4;

/** Blocks gw cannot carry to every model, refused by name instead of dropped unseen. */
function refuseUnsupported(raw: Record<string, unknown>): void {
  const tools = Array.isArray(raw.tools) ? raw.tools : [];
  for (const [i, tool] of tools.entries()) {
    const type = (tool as { type?: unknown } | null)?.type;
    if (type !== undefined && type !== null && type !== "custom") {
      throw invalidRequest(`Server tools are not supported; tools[${i}] has type ${JSON.stringify(type)}. Declare client tools (name, input_schema).`, `tools[${i}].type`);
    }
  }
  const messages = Array.isArray(raw.messages) ? raw.messages : [];
  for (const [i, message] of messages.entries()) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const [j, block] of content.entries()) {
      const type = (block as { type?: unknown } | null)?.type;
      const validate = typeof type === "string" ? validateBlock[type] : undefined;
      if (!validate) {
        throw invalidRequest(
          `Content blocks of type ${JSON.stringify(type)} are not supported; use text, image, tool_use and tool_result.`,
          `messages[${i}].content[${j}].type`,
        );
      }
      validate(block, `messages[${i}].content[${j}]`);
    }
  }
}

/** base64 sources become data: URLs, what every adapter reads (Anthropic's turns them back). */
export function imageUrlOf(block: ImageBlock): string {
  const source = block.source;
  return source.type === "base64" ? `data:${source.media_type};base64,${source.data}` : source.url;
}

const imagePart = (block: ImageBlock): ContentPart => ({ type: "image_url", image_url: { url: imageUrlOf(block) } });

/** One text block is a string (what every adapter handles for every role); several stay parts. */
function userContent(parts: ContentPart[]): string | ContentPart[] {
  const only = parts.length === 1 ? parts[0] : undefined;
  return only?.type === "text" && typeof only.text === "string" ? only.text : parts;
}

function systemMessages(system: string | TextBlock[] | undefined): ChatMessage[] {
  if (system === undefined) return [];
  if (typeof system === "string") return system ? [{ role: "system", content: system }] : [];
  // One message per block, so an Anthropic upstream sees the same blocks (cache marks included).
  return system.filter((b) => b.text).map((b) => ({ role: "system", content: b.text }));
}

/** A tool result's text for the tool message; its images follow in a user message. */
function toolResult(block: ToolResultBlock, images: ContentPart[]): ChatMessage {
  const content = block.content ?? "";
  if (typeof content === "string") return { role: "tool", tool_call_id: block.tool_use_id, content };
  let text = "";
  for (const part of content) {
    if (part.type === "text") text += (text ? "\n" : "") + part.text;
    else images.push(imagePart(part));
  }
  return { role: "tool", tool_call_id: block.tool_use_id, content: text };
}

function assistantMessage(blocks: Block[], at: string): ChatMessage {
  let text = "";
  const calls: ToolCall[] = [];
  for (const [j, block] of blocks.entries()) {
    if (block.type === "text") text += block.text;
    else if (block.type === "tool_use") {
      calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === "image" || block.type === "tool_result") {
      throw invalidRequest(`Assistant messages may hold text and tool_use blocks only.`, `${at}.content[${j}]`);
    } // thinking blocks: reasoning of an earlier turn, not sent on
  }
  const message: ChatMessage = { role: "assistant", content: calls.length > 0 && !text ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** Tool results open a user turn in Anthropic's format; chat wants them as tool messages right
 * after the assistant's calls, so they come first, then the turn's text and images. */
function userMessages(blocks: Block[], at: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const [j, block] of blocks.entries()) {
    if (block.type === "tool_result") out.push(toolResult(block, parts));
    else if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block));
    else if (block.type === "tool_use") throw invalidRequest(`User messages may not hold tool_use blocks.`, `${at}.content[${j}]`);
  }
  if (parts.length > 0) out.push({ role: "user", content: userContent(parts) });
  return out;
}

/** The chat messages of an Anthropic prompt: system first, then each turn. */
export function chatMessagesOf(body: CountTokensBody): ChatMessage[] {
  const messages = systemMessages(body.system);
  for (const [i, m] of body.messages.entries()) {
    if (typeof m.content === "string") {
      messages.push({ role: m.role, content: m.content });
      continue;
    }
    const blocks = m.content as Block[];
    if (m.role === "assistant") messages.push(assistantMessage(blocks, `messages[${i}]`));
    else messages.push(...userMessages(blocks, `messages[${i}]`));
  }
  return messages;
}

function toolsOf(body: CountTokensBody): Record<string, unknown>[] | undefined {
  if (!body.tools?.length) return undefined;
  return body.tools.map((t) => ({ type: "function", function: t.description ? { name: t.name, description: t.description, parameters: t.input_schema } : { name: t.name, parameters: t.input_schema } }));
}

function toolChoiceOf(choice: CountTokensBody["tool_choice"]): unknown {
  if (!choice) return undefined;
  if (choice.type === "any") return "required";
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  return choice.type;
}

/** The prompt of a count_tokens body, validated: messages and tools as chat has them. */
export function promptOf(raw: Record<string, unknown>): { messages: ChatMessage[]; tools: Record<string, unknown>[] } {
  refuseUnsupported(raw);
  const body = validatePrompt(raw);
  return { messages: chatMessagesOf(body), tools: toolsOf(body) ?? [] };
}

/** The raw Messages body, validated, as the raw chat body the chat parse stage checks next. */
export function messagesToChatBody(raw: Record<string, unknown>): Record<string, unknown> {
  // Optional on chat, required here (as Anthropic requires them): said so, not "expected required property".
  for (const field of ["model", "max_tokens"]) {
    if (raw[field] === undefined) throw invalidRequest(`'${field}' is required by the Messages API.`, field);
  }
  refuseUnsupported(raw);
  const body = validateBody(raw);
  const chat: Record<string, unknown> = { model: body.model, messages: chatMessagesOf(body), max_tokens: body.max_tokens };
  if (body.stop_sequences?.length) {
    if (body.stop_sequences.length > MAX_STOPS) throw invalidRequest(`gw accepts at most ${MAX_STOPS} stop sequences.`, "stop_sequences");
    chat.stop = body.stop_sequences;
  }
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (body.stream) chat.stream = true;
  const tools = toolsOf(body);
  if (tools) chat.tools = tools;
  const choice = toolChoiceOf(body.tool_choice);
  if (choice !== undefined) chat.tool_choice = choice;
  if (body.tool_choice?.disable_parallel_tool_use) chat.parallel_tool_calls = false;
  const { user_id, ...labels } = body.metadata ?? {};
  if (typeof user_id === "string" && user_id) chat.user = user_id;
  // Other metadata keys are gw's request labels (docs/api.md "Extension fields").
  if (Object.keys(labels).length > 0) chat.metadata = labels;
  for (const field of GW_FIELDS) if (raw[field] !== undefined) chat[field] = raw[field];
  return chat;
}
