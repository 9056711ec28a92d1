// Body builders for the scripted Anthropic upstream: the request checks, Messages API JSON (whole
// and as the documented SSE event sequence), error bodies, and the deterministic answers. Pure, no I/O.

export type Json = Record<string, unknown>;

export const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export interface ToolUseSpec {
  name: string;
  input: Json;
}

/** What one message answers: an optional text block, then tool_use blocks. */
export interface Answer {
  id: string;
  model: string;
  text: string | null;
  toolUses: ToolUseSpec[];
  toolIdBase: string;
  stopReason: string;
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Error `type` per status, from Anthropic's "HTTP errors" table (other 4xx use invalid_request_error). */
const ERROR_TYPES: Record<number, [string, string]> = {
  400: ["invalid_request_error", "Invalid request."],
  401: ["authentication_error", "invalid x-api-key"],
  402: ["billing_error", "Your credit balance is too low to access the Anthropic API."],
  403: ["permission_error", "Your API key does not have permission to use the specified resource."],
  404: ["not_found_error", "Not found"],
  413: ["request_too_large", "Request exceeds the maximum allowed number of bytes."],
  429: ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."],
  500: ["api_error", "Internal server error"],
  504: ["timeout_error", "Request timed out"],
  529: ["overloaded_error", "Overloaded"],
};

let requestSeq = 0;

export function errorJson(type: string, message: string): string {
  const requestId = `req_011CT${(++requestSeq).toString(36).padStart(19, "0")}`;
  return JSON.stringify({ type: "error", error: { type, message }, request_id: requestId });
}

export function defaultErrorJson(status: number): string {
  const [type, message] = ERROR_TYPES[status] ?? (status >= 500 ? ["api_error", "Internal server error"] : ["invalid_request_error", "Invalid request."]);
  return errorJson(type, message);
}

/** Text of a content value: a string, or the text of its text blocks. */
export function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const b of content as unknown[]) if (isRecord(b) && b.type === "text" && typeof b.text === "string") out += b.text;
  return out;
}

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export function inputTokens(body: Json): number {
  let chars = blocksText(body.system).length;
  for (const m of Array.isArray(body.messages) ? body.messages : []) if (isRecord(m)) chars += blocksText(m.content).length;
  return Math.max(1, Math.ceil(chars / 4));
}

export function defaultText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isRecord(m) && m.role === "user") {
      const text = blocksText(m.content);
      if (text) return `Echo: ${text.slice(0, 40)}`;
    }
  }
  return "Echo: ";
}

/** A deterministic value for a JSON Schema: enough for a plausible tool input. */
export function sampleValue(schema: unknown): unknown {
  if (!isRecord(schema)) return "sample";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [sampleValue(schema.items)];
    case "object": {
      const out: Json = {};
      const props = isRecord(schema.properties) ? schema.properties : {};
      for (const [k, v] of Object.entries(props)) out[k] = sampleValue(v);
      return out;
    }
    default:
      return "sample";
  }
}

/** The tool the default behaviour calls: the forced one, else the first; null for none. */
export function defaultToolUse(body: Json): ToolUseSpec | null {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const choice = isRecord(body.tool_choice) ? body.tool_choice : {};
  if (tools.length === 0 || choice.type === "none") return null;
  const tool = (choice.type === "tool" ? tools.find((t) => t.name === choice.name) : undefined) ?? tools[0];
  if (!tool || typeof tool.name !== "string") return null;
  const input = sampleValue(tool.input_schema);
  return { name: tool.name, input: isRecord(input) ? input : {} };
}

function usage(a: Answer, output: number): Json {
  return {
    input_tokens: a.inputTokens,
    cache_creation_input_tokens: a.cacheWrite,
    cache_read_input_tokens: a.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: a.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: "standard",
  };
}

function contentBlocks(a: Answer): Json[] {
  const blocks: Json[] = [];
  if (a.text !== null) blocks.push({ type: "text", text: a.text });
  a.toolUses.forEach((t, i) => blocks.push({ type: "tool_use", id: `${a.toolIdBase}${i}`, name: t.name, input: t.input }));
  return blocks;
}

export function messageJson(a: Answer): string {
  return JSON.stringify({
    id: a.id,
    type: "message",
    role: "assistant",
    model: a.model,
    content: contentBlocks(a),
    stop_reason: a.stopReason,
    stop_sequence: a.stopSequence,
    usage: usage(a, a.outputTokens),
  });
}

const frame = (event: string, data: Json): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Text in word-sized pieces, tool input JSON in 8-char pieces (after the empty first delta the
 * real API sends), as Anthropic streams them. */
function pieces(text: string, size: number | null): string[] {
  if (size === null) return text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The documented sequence: message_start, ping, then per block start/deltas/stop, message_delta, message_stop. */
export function streamFrames(a: Answer): string[] {
  const start = { id: a.id, type: "message", role: "assistant", model: a.model, content: [], stop_reason: null, stop_sequence: null, usage: usage(a, 1) };
  const frames = [frame("message_start", { type: "message_start", message: start })];
  contentBlocks(a).forEach((block, index) => {
    const isText = block.type === "text";
    const initial = isText ? { type: "text", text: "" } : { ...block, input: {} };
    frames.push(frame("content_block_start", { type: "content_block_start", index, content_block: initial }));
    if (index === 0) frames.push(frame("ping", { type: "ping" }));
    const parts = isText ? pieces(String(block.text), null) : ["", ...pieces(JSON.stringify(block.input), 8)];
    for (const part of parts) {
      const delta = isText ? { type: "text_delta", text: part } : { type: "input_json_delta", partial_json: part };
      frames.push(frame("content_block_delta", { type: "content_block_delta", index, delta }));
    }
    frames.push(frame("content_block_stop", { type: "content_block_stop", index }));
  });
  frames.push(frame("message_delta", {
    type: "message_delta",
    delta: { stop_reason: a.stopReason, stop_sequence: a.stopSequence },
    usage: { output_tokens: a.outputTokens },
  }));
  frames.push(frame("message_stop", { type: "message_stop" }));
  return frames;
}

export const errorFrame = (type: string, message: string): string =>
  frame("error", { type: "error", error: { type, message } });

/** The API versions this fake speaks: gw pins 2023-06-01; the SDK 1.x sends 2026-10-21. */
export const API_VERSIONS = ["2023-06-01", "2026-10-21"];

/** The request checks the real API makes that gw's mapping could get wrong. */
export function invalidReason(body: Json, version: string): string | null {
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return "max_tokens: Input should be greater than or equal to 1";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  if (body.messages.length === 0) return "messages: at least one message is required";
  const cacheReason = cacheControlReason(body);
  if (cacheReason !== null) return cacheReason;
  let previous: Json | null = null;
  for (const [i, m] of (body.messages as unknown[]).entries()) {
    if (!isRecord(m)) return `messages.${i}: Input should be a valid dictionary`;
    if (m.role !== "user" && m.role !== "assistant" && m.role !== "system") {
      return `messages.${i}.role: Input should be 'user', 'assistant' or 'system'`;
    }
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: all messages must have non-empty content`;
    for (const [j, b] of (blocks as unknown[]).entries()) {
      if (!isRecord(b)) return `messages.${i}.content.${j}: Input should be a valid dictionary`;
      if (b.type === "text" && (typeof b.text !== "string" || b.text === "")) return "messages: text content blocks must be non-empty";
      if (b.type === "tool_result" && !toolUseIds(previous).has(String(b.tool_use_id))) {
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    previous = m;
  }
  // 2026-10-21 removed the sampling parameters; 2023-06-01 keeps them, within Claude 4.5+'s rules.
  if (version !== "2023-06-01") {
    for (const p of ["temperature", "top_p", "top_k"]) if (body[p] !== undefined) return `${p}: Extra inputs are not permitted`;
  }
  const t = body.temperature;
  if (t !== undefined && (typeof t !== "number" || t < 0 || t > 1)) return "temperature: range: 0..1";
  if (t !== undefined && body.top_p !== undefined) return "`temperature` and `top_p` cannot both be specified for this model. Please use only one.";
  return null;
}

/** Prompt-cache breakpoints as the docs describe them: `{type: "ephemeral", ttl?: "5m" | "1h"}` on
 * tools, system blocks and message content blocks (tool_result content included), never on an
 * empty text block or a thinking block, and at most 4 in a request (the API's own messages). */
export const MAX_CACHE_BREAKPOINTS = 4;
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

function cacheControlReason(body: Json): string | null {
  const marked: Array<[string, Json]> = [];
  const visit = (path: string, item: unknown): void => {
    if (!isRecord(item)) return;
    if (item.cache_control !== undefined && item.cache_control !== null) marked.push([path, item]);
    if (item.type === "tool_result" && Array.isArray(item.content)) {
      (item.content as unknown[]).forEach((b, k) => visit(`${path}.content.${k}`, b));
    }
  };
  if (Array.isArray(body.tools)) (body.tools as unknown[]).forEach((t, i) => visit(`tools.${i}`, t));
  if (Array.isArray(body.system)) (body.system as unknown[]).forEach((b, i) => visit(`system.${i}`, b));
  for (const [i, m] of (body.messages as unknown[]).entries()) {
    if (isRecord(m) && Array.isArray(m.content)) (m.content as unknown[]).forEach((b, j) => visit(`messages.${i}.content.${j}`, b));
  }
  for (const [path, item] of marked) {
    const mark = item.cache_control;
    if (!isRecord(mark) || mark.type !== "ephemeral") return `${path}.cache_control.type: Input should be 'ephemeral'`;
    if (mark.ttl !== undefined && mark.ttl !== "5m" && mark.ttl !== "1h") return `${path}.cache_control.ttl: Input should be '5m' or '1h'`;
    if (UNMARKABLE.has(String(item.type))) return `${path}.${String(item.type)}.cache_control: Extra inputs are not permitted`;
    if (item.type === "text" && item.text === "") return "cache_control cannot be set for empty text blocks";
  }
  if (marked.length > MAX_CACHE_BREAKPOINTS) {
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`;
  }
  return null;
}

function toolUseIds(message: Json | null): Set<string> {
  const ids = new Set<string>();
  if (message?.role !== "assistant" || !Array.isArray(message.content)) return ids;
  for (const b of message.content as unknown[]) if (isRecord(b) && b.type === "tool_use") ids.add(String(b.id));
  return ids;
}

/** Applies the request's stop_sequences and max_tokens to a text answer, as the model would stop. */
export function stopText(text: string, body: Json): { text: string; reason: string; sequence: string | null } {
  let cut = text.length;
  let sequence: string | null = null;
  for (const s of Array.isArray(body.stop_sequences) ? body.stop_sequences : []) {
    const at = typeof s === "string" && s ? text.indexOf(s) : -1;
    if (at === -1 || at >= cut) continue;
    cut = at;
    sequence = String(s);
  }
  const limit = Number(body.max_tokens) * 4;
  if (cut > limit) return { text: text.slice(0, limit), reason: "max_tokens", sequence: null };
  return { text: text.slice(0, cut), reason: sequence === null ? "end_turn" : "stop_sequence", sequence };
}
