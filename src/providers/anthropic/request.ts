// Maps the canonical (OpenAI) chat request to an Anthropic Messages API request (pure).
// Wire format: POST /v1/messages, Anthropic API version 2023-06-01.
import { isObject } from "../../lib/json.ts";
import type { ChatMessage, ChatRequest, ContentPart, FunctionTool, ToolChoice } from "../../canonical/chat.ts";
import { capOutputTokens } from "../output-cap.ts";
import type { ProviderCall } from "../types.ts";
import type { UpstreamRequest } from "../transport.ts";
import { withCacheBreakpoints } from "./cache-breakpoints.ts";
import type { AnthropicMessage, AnthropicTool, AnthropicToolChoice, ContentBlock, MessagesBody, TextBlock } from "./wire.ts";

export const ANTHROPIC_VERSION = "2023-06-01";

export interface AnthropicOptions {
  /** Without /v1, like the SDK's baseURL and ANTHROPIC_BASE_URL. */
  baseUrl: string;
  apiKey: string | null;
}

/** Anthropic requires max_tokens; OpenAI callers usually omit it. */
const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic has no JSON mode at this API version, so JSON mode becomes an instruction appended to
 * the system prompt (with the schema when one is given). The caller's own validation still applies;
 * a prefilled "{" would be stricter but Claude 4.6+ rejects assistant prefill. */
export function jsonInstruction(request: ChatRequest): string | null {
  const format = request.response_format;
  if (!format || format.type === "text") return null;
  const base = "Respond with a single JSON object only: no prose before or after it and no Markdown code fences.";
  const schema = format.type === "json_schema" ? format.json_schema?.schema : undefined;
  return schema ? `${base} The object must conform to this JSON Schema:\n${JSON.stringify(schema)}` : base;
}

function partText(part: ContentPart): string | null {
  if (part.type === "text" && typeof part.text === "string") return part.text;
  if (part.type === "refusal" && typeof part.refusal === "string") return part.refusal;
  return null;
}

/** data: URLs carry the image inline (base64); anything else is fetched by Anthropic from its URL. */
export function imageBlock(url: string): ContentBlock {
  const comma = url.indexOf(",");
  if (url.startsWith("data:") && comma > 0) {
    const header = url.slice(5, comma);
    if (header.endsWith(";base64")) {
      const mediaType = header.slice(0, header.indexOf(";"));
      return { type: "image", source: { type: "base64", media_type: mediaType, data: url.slice(comma + 1) } };
    }
  }
  return { type: "image", source: { type: "url", url } };
}

/** Anthropic rejects empty text blocks, so empty strings and parts are dropped. */
function contentBlocks(content: ChatMessage["content"]): ContentBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  const out: ContentPart[] = Array.isArray(content) ? content : [];
  const blocks: ContentBlock[] = [];
  for (const part of out) {
    const text = partText(part);
    if (text) blocks.push({ type: "text", text });
    else if (part.type === "image_url") {
      const url = typeof part.image_url === "string" ? part.image_url : part.image_url?.url;
      if (url) blocks.push(imageBlock(url));
    }
  }
  return blocks;
}

/** A tool call's arguments as the object Anthropic's wire carries; text that is no JSON object
 * becomes {} (also the Messages ingress's answers, ingress/messages/response.ts). */
export function toolInputOf(args: string): Record<string, unknown> {
  if (!args) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function systemText(content: ChatMessage["content"]): string {
  return contentBlocks(content).map((b) => (b.type === "text" ? b.text : "")).filter(Boolean).join("\n");
}

/** One Anthropic turn per OpenAI message; system and developer messages go to `system`. */
function turnOf(m: ChatMessage): AnthropicMessage | null {
  if (m.role === "tool") {
    const blocks = contentBlocks(m.content);
    const content = typeof m.content === "string" ? m.content : blocks;
    const result: ContentBlock = { type: "tool_result", tool_use_id: m.tool_call_id ?? "" };
    if (content.length > 0) result.content = content;
    return { role: "user", content: [result] };
  }
  const role = m.role === "assistant" ? "assistant" : "user";
  const content = contentBlocks(m.content);
  if (role === "assistant") {
    for (const call of m.tool_calls ?? []) {
      content.push({ type: "tool_use", id: call.id, name: call.function.name, input: toolInputOf(call.function.arguments) });
    }
  }
  return content.length > 0 ? { role, content } : null;
}

/** Anthropic wants user and assistant turns to alternate, so consecutive same-role turns (and runs
 * of tool results) are merged into one. */
export function toMessages(messages: ChatMessage[]): { system: TextBlock[]; messages: AnthropicMessage[] } {
  const system: TextBlock[] = [];
  const out: AnthropicMessage[] = [];
  for (const m of messages) {
    if (m.role === "system" || m.role === "developer") {
      const text = systemText(m.content);
      if (text) system.push({ type: "text", text });
      continue;
    }
    const turn = turnOf(m);
    if (!turn) continue;
    const last = out.at(-1);
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else out.push(turn);
  }
  return { system, messages: out };
}

export function toTools(tools: FunctionTool[]): AnthropicTool[] {
  return tools.map((t) => {
    const tool: AnthropicTool = { name: t.function.name, input_schema: t.function.parameters ?? { type: "object", properties: {} } };
    if (t.function.description) tool.description = t.function.description;
    return tool;
  });
}

export function toToolChoice(choice: ToolChoice | undefined, parallel: unknown): AnthropicToolChoice | undefined {
  // OpenAI's parallel_tool_calls: false is Anthropic's disable_parallel_tool_use on the choice.
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...single };
  if (isObject(choice)) return { type: "tool", name: choice.function.name, ...single };
  if (choice === "auto" || parallel === false) return { type: "auto", ...single };
  return undefined;
}

/** Only fields with an Anthropic meaning are mapped; gw's extension fields and OpenAI-only fields
 * (n, seed, logprobs, user, ...) never leave the gateway. */
export function toMessagesBody(call: Pick<ProviderCall, "model" | "request">): MessagesBody {
  const req = call.request;
  const { system, messages } = toMessages(req.messages);
  const instruction = jsonInstruction(req);
  if (instruction) system.push({ type: "text", text: instruction });
  const body: MessagesBody = {
    model: call.model.upstream_id,
    max_tokens: capOutputTokens(req.max_completion_tokens ?? req.max_tokens ?? DEFAULT_MAX_TOKENS, call.model),
    messages,
  };
  if (system.length > 0) body.system = system;
  if (req.tools && req.tools.length > 0) {
    body.tools = toTools(req.tools);
    const choice = toToolChoice(req.tool_choice, req.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  if (req.stop != null) {
    const stops = (typeof req.stop === "string" ? [req.stop] : req.stop).filter((s) => s.length > 0);
    if (stops.length > 0) body.stop_sequences = stops;
  }
  // OpenAI's temperature runs 0..2, Anthropic's 0..1: clamp rather than fail a request that other
  // providers would serve. Claude 4.5+ rejects temperature and top_p together; temperature wins.
  if (typeof req.temperature === "number") body.temperature = Math.min(1, Math.max(0, req.temperature));
  else if (typeof req.top_p === "number") body.top_p = req.top_p;
  if (req.stream) body.stream = true;
  return withCacheBreakpoints(body);
}

export function buildRequest(call: ProviderCall, options: AnthropicOptions): UpstreamRequest {
  const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION };
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  if (call.request.stream) headers.accept = "text/event-stream";
  return {
    url: `${options.baseUrl.replace(/\/+$/, "")}/v1/messages`,
    headers,
    body: JSON.stringify(toMessagesBody(call)),
  };
}
