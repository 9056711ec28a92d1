// Body builders for the scripted upstream: OpenAI wire-format JSON for chat completions
// (whole and streamed), embeddings, models and errors. Pure functions, no I/O.

export type Json = Record<string, unknown>;

export interface ToolCallSpec {
  name: string;
  arguments: string;
}

/** What one chat completion answers: text, or tool calls (content null). */
export interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: ToolCallSpec[] | null;
  promptTokens: number;
  toolCallIdBase: string;
}

export const SYSTEM_FINGERPRINT = "fp_5c1d0b6e2a";

export function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** Text of a message's `content`: a string, or the `text` of its content parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const part of content as unknown[]) if (isRecord(part) && typeof part.text === "string") out += part.text;
  return out;
}

export function promptTokens(messages: unknown[]): number {
  let chars = 0;
  for (const m of messages) if (isRecord(m)) chars += contentText(m.content).length;
  return Math.max(1, Math.ceil(chars / 4));
}

export function defaultContent(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isRecord(m) && m.role === "user") return `Echo: ${contentText(m.content).slice(0, 40)}`;
  }
  return "Echo: ";
}

/** The tool the default behaviour calls: the forced one, else the first function tool; null for none. */
export function defaultToolCall(body: Json): ToolCallSpec | null {
  const tools = body.tools;
  const choice = body.tool_choice;
  if (!Array.isArray(tools) || tools.length === 0 || choice === "none") return null;
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === "string") {
    return { name: choice.function.name, arguments: "{}" };
  }
  for (const t of tools as unknown[]) {
    if (isRecord(t) && isRecord(t.function) && typeof t.function.name === "string") {
      return { name: t.function.name, arguments: "{}" };
    }
  }
  return null;
}

export function usage(prompt: number, completion: number): Json {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function completionTokens(a: ChatAnswer): number {
  if (a.toolCalls === null) return estimateTokens(a.content ?? "");
  let n = 0;
  for (const t of a.toolCalls) n += estimateTokens(t.name + t.arguments);
  return n;
}

export function chatCompletionJson(a: ChatAnswer): string {
  const message: Json = { role: "assistant", content: a.content, refusal: null, annotations: [] };
  if (a.toolCalls !== null) {
    message.tool_calls = a.toolCalls.map((t, i) => ({
      id: `${a.toolCallIdBase}${i}`,
      type: "function",
      function: { name: t.name, arguments: t.arguments },
    }));
  }
  return JSON.stringify({
    id: a.id,
    object: "chat.completion",
    created: a.created,
    model: a.model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: a.toolCalls === null ? "stop" : "tool_calls" },
    ],
    usage: usage(a.promptTokens, completionTokens(a)),
    service_tier: "default",
    system_fingerprint: SYSTEM_FINGERPRINT,
  });
}

/** Words with their trailing whitespace, so the pieces concatenate back to `text`. */
function wordPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Fixed-size fragments that never split a surrogate pair. */
function fragments(text: string, size: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + size);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/**
 * Every SSE frame of a streamed answer, in order, without the final `data: [DONE]`.
 * With include_usage every chunk carries `"usage":null` and a last chunk has `choices: []` and usage.
 */
export function chatStreamFrames(a: ChatAnswer, includeUsage: boolean): string[] {
  const head =
    `data: {"id":${JSON.stringify(a.id)},"object":"chat.completion.chunk","created":${a.created},` +
    `"model":${JSON.stringify(a.model)},"service_tier":"default","system_fingerprint":"${SYSTEM_FINGERPRINT}","choices":[`;
  const tail = includeUsage ? `],"usage":null}\n\n` : `]}\n\n`;
  const choice = (delta: string, finish: string | null): string =>
    `${head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? "null" : `"${finish}"`}}${tail}`;
  const frames: string[] = [];
  if (a.toolCalls === null) {
    frames.push(choice(`{"role":"assistant","content":"","refusal":null}`, null));
    for (const p of wordPieces(a.content ?? "")) frames.push(choice(`{"content":${JSON.stringify(p)}}`, null));
    frames.push(choice("{}", "stop"));
  } else {
    a.toolCalls.forEach((t, i) => {
      const start =
        `"tool_calls":[{"index":${i},"id":"${a.toolCallIdBase}${i}","type":"function",` +
        `"function":{"name":${JSON.stringify(t.name)},"arguments":""}}]`;
      frames.push(choice(i === 0 ? `{"role":"assistant","content":null,${start},"refusal":null}` : `{${start}}`, null));
      for (const f of fragments(t.arguments, 8)) {
        frames.push(choice(`{"tool_calls":[{"index":${i},"function":{"arguments":${JSON.stringify(f)}}}]}`, null));
      }
    });
    frames.push(choice("{}", "tool_calls"));
  }
  if (includeUsage) {
    frames.push(`${head}],"usage":${JSON.stringify(usage(a.promptTokens, completionTokens(a)))}}\n\n`);
  }
  return frames;
}

export const DONE_FRAME = "data: [DONE]\n\n";

export function errorJson(message: string, type: string, param: string | null, code: string | null): string {
  return JSON.stringify({ error: { message, type, param, code } });
}

export const AUTH_ERROR = errorJson(
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
  "invalid_request_error",
  null,
  "invalid_api_key",
);
export const BAD_JSON_ERROR = errorJson(
  "We could not parse the JSON body of your request. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.",
  "invalid_request_error",
  null,
  null,
);
export const MODEL_ERROR = errorJson("you must provide a model parameter", "invalid_request_error", null, null);
export const MESSAGES_ERROR = errorJson(
  "Missing required parameter: 'messages'.",
  "invalid_request_error",
  "messages",
  "missing_required_parameter",
);
export const INPUT_ERROR = errorJson("'input' is a required property", "invalid_request_error", "input", null);
export const NOT_OBJECT_ERROR = errorJson("The request body must be a JSON object.", "invalid_request_error", null, null);

/** The error body OpenAI would send for a scripted status. */
export function defaultErrorJson(status: number): string {
  if (status === 401) return AUTH_ERROR;
  if (status === 429) {
    return errorJson("Rate limit reached for requests. Please try again later.", "requests", null, "rate_limit_exceeded");
  }
  if (status === 503) return errorJson("The engine is currently overloaded, please try again later.", "server_error", null, null);
  if (status >= 500) {
    return errorJson("The server had an error while processing your request. Sorry about that!", "server_error", null, null);
  }
  return errorJson(`Scripted error (status ${status}).`, "invalid_request_error", null, null);
}

/** Deterministic unit vector for `text`, every component exactly representable as float32. */
function vectorFor(text: string, dims: number): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const raw: number[] = new Array<number>(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    const v = (h >>> 0) / 0x100000000 - 0.5;
    raw[i] = v;
    norm += v * v;
  }
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) raw[i] = Math.fround((raw[i] as number) * scale);
  return raw;
}

function base64Float32(v: number[]): string {
  const view = new DataView(new ArrayBuffer(v.length * 4));
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i] as number, true);
  return Buffer.from(view.buffer).toString("base64");
}

/** The embeddings response, or null when `input` is not a string, string[], number[] or number[][]. */
export function embeddingsJson(body: Json): string | null {
  const input = body.input;
  // Each item: the text its vector derives from, and its token count.
  let items: Array<[string, number]>;
  const list: unknown[] = Array.isArray(input) ? input : [];
  if (typeof input === "string") items = [[input, estimateTokens(input)]];
  else if (list.length === 0) return null;
  else if (list.every((x): x is string => typeof x === "string")) items = list.map((x) => [x, estimateTokens(x)]);
  else if (list.every((x) => typeof x === "number")) items = [[list.join(","), list.length]];
  else if (list.every((x): x is unknown[] => Array.isArray(x))) items = list.map((x) => [x.join(","), x.length]);
  else return null;
  const dims = typeof body.dimensions === "number" && body.dimensions > 0 ? Math.floor(body.dimensions) : 8;
  const base64 = body.encoding_format === "base64";
  let tokens = 0;
  const data = items.map(([text, n], index) => {
    tokens += Math.max(1, n);
    const vec = vectorFor(text, dims);
    return { object: "embedding", index, embedding: base64 ? base64Float32(vec) : vec };
  });
  return JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

export const MODELS = [
  { id: "gpt-4o-mini", object: "model", created: 1721172741, owned_by: "system" },
  { id: "gpt-4o", object: "model", created: 1715367049, owned_by: "system" },
  { id: "text-embedding-3-small", object: "model", created: 1705948997, owned_by: "system" },
];
export const MODELS_JSON = JSON.stringify({ object: "list", data: MODELS });
