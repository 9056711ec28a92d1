// Maps the canonical chat request to a Gemini generateContent request (pure): system and
// developer messages -> systemInstruction, turns -> contents, tools, toolConfig, generationConfig.
import { isObject } from "../../lib/json.ts";
import type { ChatMessage, ChatRequest, ToolCall, ToolChoice } from "../../canonical/chat.ts";
import type { CatalogModel } from "../../routing/catalog-types.ts";
import { capOutputTokens } from "../output-cap.ts";
import type { ProviderCall } from "../types.ts";
import type { UpstreamRequest } from "../transport.ts";
import { contentParts, textOf } from "./parts.ts";
import { toGeminiSchema } from "./schema.ts";
import type {
  GeminiContent, GeminiFunctionDeclaration, GeminiPart, GenerateContentRequest, GenerationConfig,
} from "./wire.ts";

export interface GoogleOptions {
  /** The host the API version path is appended to (GEMINI_BASE_URL). */
  baseUrl: string;
  apiKey: string | null;
}

export const GOOGLE_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

/** Gemini's documented stand-in for a signature gw cannot replay (history from another model, or a
 * client that dropped it): without any, Gemini 3 rejects the first functionCall of a step (400). */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** A signature a client sent on a tool call the way Google's OpenAI-compatible endpoint hands it out. */
function signatureOf(call: ToolCall): string | undefined {
  const extra: unknown = (call as ToolCall & { extra_content?: unknown }).extra_content;
  const google = isObject(extra) ? extra.google : undefined;
  return isObject(google) && typeof google.thought_signature === "string" ? google.thought_signature : undefined;
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

function assistantParts(m: ChatMessage): GeminiPart[] {
  const parts = contentParts(m.content);
  const calls = m.tool_calls ?? [];
  const callParts: GeminiPart[] = calls.map((c) => {
    const part: GeminiPart = { functionCall: { name: c.function.name, args: parseArgs(c.function.arguments) } };
    const signature = signatureOf(c);
    if (signature) part.thoughtSignature = signature;
    return part;
  });
  const first = callParts[0];
  if (first && !callParts.some((p) => p.thoughtSignature)) first.thoughtSignature = SKIP_SIGNATURE;
  return [...parts, ...callParts];
}

function toolResultPart(m: ChatMessage, names: Map<string, string>): GeminiPart {
  const id = m.tool_call_id ?? "";
  // Gemini pairs a result with its call by name; a result gw cannot place keeps its own name or id.
  const name = names.get(id) ?? (typeof m.name === "string" && m.name ? m.name : id || "tool");
  const text = textOf(m.content);
  let response: Record<string, unknown> = { content: text };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed)) response = parsed;
  } catch {
    // Plain text: wrapped as { content } because Gemini wants an object.
  }
  return { functionResponse: { name, response } };
}

/** Contents in order; consecutive same-role turns merged (parallel tool results become one turn). */
export function toContents(messages: ChatMessage[]): GeminiContent[] {
  const names = new Map<string, string>();
  const out: GeminiContent[] = [];
  for (const m of messages) {
    if (m.role === "system" || m.role === "developer") continue; // see systemInstruction()
    let role: "user" | "model";
    let parts: GeminiPart[];
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
      role = "model";
      parts = assistantParts(m);
    } else if (m.role === "tool") {
      role = "user";
      parts = [toolResultPart(m, names)];
    } else {
      role = "user";
      parts = contentParts(m.content);
    }
    if (parts.length === 0) continue; // Gemini rejects a turn without parts
    const last = out.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  }
  return out;
}

function systemInstruction(messages: ChatMessage[]): GenerateContentRequest["systemInstruction"] {
  const parts = messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => ({ text: textOf(m.content) }))
    .filter((p) => p.text.length > 0);
  return parts.length > 0 ? { parts } : undefined;
}

function toolConfig(choice: ToolChoice | undefined): GenerateContentRequest["toolConfig"] {
  if (choice === undefined) return undefined; // Gemini's default is AUTO too
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } };
}

function tools(request: ChatRequest): GenerateContentRequest["tools"] {
  const declarations: GeminiFunctionDeclaration[] = [];
  for (const t of request.tools ?? []) {
    if (t.type !== "function") continue;
    const d: GeminiFunctionDeclaration = { name: t.function.name };
    if (t.function.description) d.description = t.function.description;
    const parameters = toGeminiSchema(t.function.parameters);
    if (parameters) d.parameters = parameters;
    declarations.push(d);
  }
  return declarations.length > 0 ? [{ functionDeclarations: declarations }] : undefined;
}

function generationConfig(r: ChatRequest, model: CatalogModel | undefined): GenerationConfig | undefined {
  const g: GenerationConfig = {};
  const asked = r.max_completion_tokens ?? r.max_tokens;
  const max = model ? capOutputTokens(asked, model) : asked;
  if (typeof max === "number") g.maxOutputTokens = max;
  if (typeof r.temperature === "number") g.temperature = r.temperature;
  if (typeof r.top_p === "number") g.topP = r.top_p;
  if (typeof r.seed === "number") g.seed = r.seed;
  if (typeof r.presence_penalty === "number") g.presencePenalty = r.presence_penalty;
  if (typeof r.frequency_penalty === "number") g.frequencyPenalty = r.frequency_penalty;
  if (typeof r.stop === "string") g.stopSequences = [r.stop];
  else if (Array.isArray(r.stop) && r.stop.length > 0) g.stopSequences = r.stop;
  const format = r.response_format;
  if (format?.type === "json_object" || format?.type === "json_schema") g.responseMimeType = "application/json";
  // responseJsonSchema takes JSON Schema as OpenAI clients write it (additionalProperties, $ref,
  // $defs included), so a strict schema arrives unchanged; responseSchema would need the lossy
  // OpenAPI-subset rewrite used for tool parameters.
  if (format?.type === "json_schema" && isObject(format.json_schema?.schema)) g.responseJsonSchema = format.json_schema.schema;
  return Object.keys(g).length > 0 ? g : undefined;
}

/** The request body. Only the fields named here go upstream, so gw's extension fields (routing,
 * max_cost, optimization, metadata, tags, cache, gw) and OpenAI-only fields never leave. */
/** `model`: the attempt's catalog entry, whose output maximum caps the request's. */
export function toGenerateContent(request: ChatRequest, model?: CatalogModel): GenerateContentRequest {
  const body: GenerateContentRequest = { contents: toContents(request.messages) };
  const system = systemInstruction(request.messages);
  if (system) body.systemInstruction = system;
  const declared = tools(request);
  if (declared) {
    body.tools = declared;
    const config = toolConfig(request.tool_choice);
    if (config) body.toolConfig = config;
  }
  const config = generationConfig(request, model);
  if (config) body.generationConfig = config;
  return body;
}

export function buildRequest(call: ProviderCall, options: GoogleOptions, stream: boolean): UpstreamRequest {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers["x-goog-api-key"] = options.apiKey;
  if (stream) headers.accept = "text/event-stream";
  const model = call.model.upstream_id.replace(/^models\//, "");
  const method = stream ? "streamGenerateContent?alt=sse" : "generateContent";
  return {
    url: `${options.baseUrl.replace(/\/+$/, "")}/v1beta/models/${model}:${method}`,
    headers,
    body: JSON.stringify(toGenerateContent(call.request, call.model)),
  };
}
