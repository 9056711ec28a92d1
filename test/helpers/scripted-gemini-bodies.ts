// Body builders for the scripted Gemini upstream: GenerateContentResponse JSON (whole and as SSE
// events), Google error bodies, and the request checks the real API makes. Pure, no I/O. Shapes
// follow ai.google.dev/api/generate-content and cloud.google.com/apis/design/errors.

export type Json = Record<string, unknown>;

export const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export interface FunctionCallSpec {
  name: string;
  args?: Record<string, unknown>;
}

/** What one generateContent call answers. */
export interface GeminiAnswer {
  model: string;
  responseId: string;
  text: string | null;
  functionCalls: FunctionCallSpec[] | null;
  /** Put on the first functionCall part, as Gemini 3 does. */
  thoughtSignature?: string;
  finishReason: string;
  /** The prompt was blocked: promptFeedback and no candidates. */
  blockReason?: string;
  promptTokens: number;
  cachedTokens: number;
  thoughtsTokens: number;
}

const STATUS_NAMES: Record<number, [string, string]> = {
  400: ["INVALID_ARGUMENT", "Request contains an invalid argument."],
  401: ["UNAUTHENTICATED", "Request had invalid authentication credentials."],
  403: ["PERMISSION_DENIED", "The caller does not have permission"],
  404: ["NOT_FOUND", "Requested entity was not found."],
  429: ["RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details."],
  500: ["INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"],
  503: ["UNAVAILABLE", "The model is overloaded. Please try again later."],
  504: ["DEADLINE_EXCEEDED", "Deadline expired before operation could complete."],
};

export function googleError(code: number, message?: string, details?: Json[]): string {
  const [status, fallback] = STATUS_NAMES[code] ?? ["UNKNOWN", "Unknown error."];
  const error: Json = { code, message: message ?? fallback, status };
  if (details) error.details = details;
  return JSON.stringify({ error });
}

/** Google's default body for a scripted error status (429 carries a RetryInfo of 7 s). */
export function defaultErrorBody(code: number): string {
  if (code !== 429) return googleError(code);
  return googleError(429, undefined, [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" }]);
}

export const API_KEY_INVALID = googleError(400, "API key not valid. Please pass a valid API key.", [
  {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: "API_KEY_INVALID",
    domain: "googleapis.com",
    metadata: { service: "generativelanguage.googleapis.com" },
  },
  { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: "API key not valid. Please pass a valid API key." },
]);

export const API_KEY_MISSING = googleError(
  403,
  "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
);

export const unknownField = (name: string, at?: string): string =>
  googleError(400, `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ""}: Cannot find field.`);

const TOP_LEVEL = new Set([
  "contents", "systemInstruction", "tools", "toolConfig", "safetySettings", "generationConfig", "cachedContent", "model",
]);
const GENERATION_CONFIG = new Set([
  "stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema", "candidateCount", "maxOutputTokens",
  "temperature", "topP", "topK", "seed", "presencePenalty", "frequencyPenalty", "responseLogprobs", "logprobs",
  "responseModalities", "thinkingConfig", "mediaResolution", "speechConfig",
]);
const SCHEMA_KEYS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
  "default", "items", "minimum", "maximum",
]);

/** Gemini's Schema is a proto: any other key (additionalProperties, $schema...) is a 400. */
function schemaError(schema: unknown, at: string): string | null {
  if (!isRecord(schema)) return null;
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYS.has(key)) return unknownField(key, at);
    if (key === "type" && (typeof value !== "string" || value !== value.toUpperCase())) {
      return googleError(400, `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${String(value)}"`);
    }
    const nested = key === "items" ? [value] : key === "anyOf" && Array.isArray(value) ? value : key === "properties" && isRecord(value) ? Object.values(value) : [];
    for (const n of nested) {
      const e = schemaError(n, `${at}.${key}`);
      if (e) return e;
    }
  }
  if (schema.type === "OBJECT" && isRecord(schema.properties) && Object.keys(schema.properties).length === 0) {
    return googleError(400, `* GenerateContentRequest.${at}.properties: should be non-empty for OBJECT type\n`);
  }
  return null;
}

/** The checks the real API makes before generating; a Google error body, or null when valid. */
export function requestError(body: Json, requireSignatures: boolean): string | null {
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return unknownField(key);
  const g = body.generationConfig;
  if (isRecord(g)) for (const key of Object.keys(g)) if (!GENERATION_CONFIG.has(key)) return unknownField(key, "generation_config");
  const tools = Array.isArray(body.tools) ? body.tools : [];
  for (const [i, tool] of tools.entries()) {
    const decls = isRecord(tool) && Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : [];
    for (const [j, d] of decls.entries()) {
      const e = isRecord(d) ? schemaError(d.parameters, `tools[${i}].function_declarations[${j}].parameters`) : null;
      if (e) return e;
    }
  }
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) {
    return googleError(400, "* GenerateContentRequest.contents: contents is not specified\n");
  }
  for (const [i, c] of contents.entries()) {
    if (!isRecord(c)) return googleError(400);
    if (c.role !== undefined && c.role !== "user" && c.role !== "model") return googleError(400, "Please use a valid role: user, model.");
    if (!Array.isArray(c.parts) || c.parts.length === 0) {
      return googleError(400, `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    }
    const calls = c.parts.filter((p) => isRecord(p) && isRecord(p.functionCall));
    if (c.role !== "model" || calls.length === 0) continue;
    const first = calls[0] as Json;
    if (requireSignatures && typeof first.thoughtSignature !== "string") {
      const name = String((first.functionCall as Json).name);
      return googleError(400, `Function call is missing a thought_signature in functionCall parts. Additional data, function call \`default_api:${name}\` , position ${i + 1}.`);
    }
    const next = contents[i + 1];
    if (!isRecord(next) || !Array.isArray(next.parts)) continue;
    const answers = next.parts.filter((p) => isRecord(p) && isRecord(p.functionResponse)).length;
    if (answers !== calls.length) {
      return googleError(400, "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.");
    }
  }
  return null;
}

export function textOfParts(parts: unknown): string {
  let out = "";
  if (Array.isArray(parts)) for (const p of parts) if (isRecord(p) && typeof p.text === "string") out += p.text;
  return out;
}

export function promptTokens(body: Json): number {
  let chars = isRecord(body.systemInstruction) ? textOfParts(body.systemInstruction.parts).length : 0;
  for (const c of body.contents as unknown[]) if (isRecord(c)) chars += textOfParts(c.parts).length;
  return Math.max(1, Math.ceil(chars / 4));
}

/** `Echo: ` and the first 40 chars of the last user text, like the OpenAI scripted upstream. */
export function echo(contents: unknown[]): string {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (isRecord(c) && c.role !== "model") {
      const text = textOfParts(c.parts);
      if (text) return `Echo: ${text.slice(0, 40)}`;
    }
  }
  return "Echo: ";
}

/** The call a request with tools gets: the forced one, else the first declared; none when the
 * last turn answers a call (the model then replies in text) or mode is NONE. */
export function defaultFunctionCall(body: Json): FunctionCallSpec | null {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const decl = tools.flatMap((t) => (isRecord(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : []))[0];
  if (!isRecord(decl) || typeof decl.name !== "string") return null;
  const config = isRecord(body.toolConfig) && isRecord(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  if (config.mode === "NONE") return null;
  const last = (body.contents as unknown[]).at(-1);
  if (isRecord(last) && Array.isArray(last.parts) && last.parts.some((p) => isRecord(p) && isRecord(p.functionResponse))) return null;
  const allowed = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames[0] : undefined;
  return { name: typeof allowed === "string" ? allowed : decl.name, args: {} };
}

const SAFETY_RATINGS = [
  { category: "HARM_CATEGORY_SEXUALLY_EXPLICIT", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_HATE_SPEECH", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
];

const tokens = (text: string): number => Math.ceil(text.length / 4);

/** Cumulative usage, as every Gemini event carries it: promptTokenCount includes the cached part. */
function usage(a: GeminiAnswer, candidates: number): Json {
  const prompt = a.promptTokens + a.cachedTokens;
  const u: Json = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + a.thoughtsTokens,
  };
  if (a.cachedTokens > 0) u.cachedContentTokenCount = a.cachedTokens;
  u.promptTokensDetails = [{ modality: "TEXT", tokenCount: prompt }];
  if (a.cachedTokens > 0) u.cacheTokensDetails = [{ modality: "TEXT", tokenCount: a.cachedTokens }];
  if (a.thoughtsTokens > 0) u.thoughtsTokenCount = a.thoughtsTokens;
  return u;
}

function envelope(a: GeminiAnswer, candidate: Json | null, candidateTokens: number): Json {
  const out: Json = {};
  if (candidate) out.candidates = [candidate];
  else out.promptFeedback = { blockReason: a.blockReason, safetyRatings: SAFETY_RATINGS };
  out.usageMetadata = usage(a, candidateTokens);
  out.modelVersion = a.model;
  out.responseId = a.responseId;
  return out;
}

const callPart = (a: GeminiAnswer, c: FunctionCallSpec, first: boolean): Json =>
  first && a.thoughtSignature ? { functionCall: { name: c.name, args: c.args ?? {} }, thoughtSignature: a.thoughtSignature } : { functionCall: { name: c.name, args: c.args ?? {} } };

/** A filtered answer comes without content, with the safety ratings that blocked it. */
const filtered = (a: GeminiAnswer): boolean => a.finishReason !== "STOP" && a.finishReason !== "MAX_TOKENS";

function candidate(a: GeminiAnswer, parts: Json[] | null, finish: boolean): Json {
  const c: Json = {};
  if (parts) c.content = { parts, role: "model" };
  if (finish) c.finishReason = a.finishReason;
  if (finish && filtered(a)) c.safetyRatings = SAFETY_RATINGS;
  c.index = 0;
  return c;
}

export function responseJson(a: GeminiAnswer): string {
  if (a.blockReason) return JSON.stringify(envelope(a, null, 0));
  if (a.functionCalls) {
    const parts = a.functionCalls.map((c, i) => callPart(a, c, i === 0));
    return JSON.stringify(envelope(a, candidate(a, parts, true), tokens(JSON.stringify(parts))));
  }
  const text = a.text ?? "";
  const parts = filtered(a) ? null : [{ text }];
  return JSON.stringify(envelope(a, candidate(a, parts, true), filtered(a) ? 0 : tokens(text)));
}

/** Up to three pieces cut at spaces, so a stream has several text events. */
export function splitText(text: string): string[] {
  const words = text.split(/(?<= )/);
  const size = Math.ceil(words.length / 3);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(""));
  return out.length > 0 ? out : [""];
}

/** The stream's events: text in pieces (the last carries finishReason), one event per function
 * call, cumulative usage on each; a filtered finish arrives as a last event without content. */
export function streamEvents(a: GeminiAnswer): Json[] {
  if (a.blockReason) return [envelope(a, null, 0)];
  const out: Json[] = [];
  let produced = 0;
  const pieces: Json[][] = a.functionCalls
    ? a.functionCalls.map((c, i) => [callPart(a, c, i === 0)])
    : splitText(a.text ?? "").map((text) => [{ text }]);
  for (const [i, parts] of pieces.entries()) {
    produced += a.functionCalls ? tokens(JSON.stringify(parts)) : tokens(String((parts[0] as Json).text));
    const last = i === pieces.length - 1 && !filtered(a);
    out.push(envelope(a, candidate(a, parts, last), produced));
  }
  if (filtered(a)) out.push(envelope(a, candidate(a, null, true), produced));
  return out;
}

/** Google's SSE framing (alt=sse): one `data:` line per event, CRLF line ends. */
export const sseFrame = (event: Json): string => `data: ${JSON.stringify(event)}\r\n\r\n`;

// --- Embeddings: embedContent and batchEmbedContents (ai.google.dev/api/embeddings). Error texts
// follow Google's field-violation style; the batch limit's wording is the real API's.

/** gemini-embedding-001's size when outputDimensionality is absent. */
export const EMBED_DIMENSIONS = 3072;
export const MAX_EMBED_BATCH = 100;

const EMBED_FIELDS = new Set(["model", "content", "taskType", "title", "outputDimensionality"]);
const TASK_TYPES = new Set([
  "TASK_TYPE_UNSPECIFIED", "RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY", "CLASSIFICATION",
  "CLUSTERING", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CODE_RETRIEVAL_QUERY",
]);

/** Checks one EmbedContentRequest; `at` is its place in a batch ("requests[2]."), "" alone. */
function embedError(req: unknown, at: string, model: string): string | null {
  const where = at ? `BatchEmbedContentsRequest.${at}` : "EmbedContentRequest.";
  if (!isRecord(req)) return googleError(400, `Invalid value at '${at.slice(0, -1)}': not an object.`);
  for (const key of Object.keys(req)) if (!EMBED_FIELDS.has(key)) return unknownField(key, at ? at.slice(0, -1) : undefined);
  // Inside a batch every request names its model, and it must be the URL's.
  if (at && req.model !== `models/${model}`) {
    return googleError(400, `* ${where}model: model in the request (${String(req.model)}) must match models/${model}.\n`);
  }
  const content = req.content;
  if (!isRecord(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
    return googleError(400, `* ${where}content: content is not specified\n`);
  }
  if (content.role !== undefined && content.role !== "user" && content.role !== "model") return googleError(400, "Please use a valid role: user, model.");
  if (textOfParts(content.parts).trim() === "") return googleError(400, `* ${where}content.parts: text must not be empty\n`);
  if (req.taskType !== undefined && (typeof req.taskType !== "string" || !TASK_TYPES.has(req.taskType))) {
    return googleError(400, `Invalid value at '${at}task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${String(req.taskType)}"`);
  }
  const dims = req.outputDimensionality;
  if (dims !== undefined && (typeof dims !== "number" || !Number.isInteger(dims))) {
    return googleError(400, `Invalid value at '${at}output_dimensionality' (TYPE_INT32), ${JSON.stringify(dims)}`);
  }
  if (typeof dims === "number" && (dims < 1 || dims > EMBED_DIMENSIONS)) {
    return googleError(400, `* ${where}output_dimensionality: must be between 1 and ${EMBED_DIMENSIONS}\n`);
  }
  return null;
}

/** The checks embedContent / batchEmbedContents make; a Google error body, or null when valid. */
export function embedRequestError(method: string, body: Json, model: string): string | null {
  if (method === "embedContent") return embedError(body, "", model);
  for (const key of Object.keys(body)) if (key !== "requests") return unknownField(key);
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) return googleError(400, "* BatchEmbedContentsRequest.requests: requests is not specified\n");
  if (requests.length > MAX_EMBED_BATCH) {
    return googleError(400, `* BatchEmbedContentsRequest.requests: at most ${MAX_EMBED_BATCH} requests can be in one batch\n`);
  }
  for (const [i, r] of requests.entries()) {
    const e = embedError(r, `requests[${i}].`, model);
    if (e) return e;
  }
  return null;
}

/** A deterministic vector for `text`: unit length at full size, float32-exact components. A smaller
 * outputDimensionality keeps the first components without re-normalising, as Gemini truncates. */
export function embedValues(text: string, dims = EMBED_DIMENSIONS): number[] {
  let h = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const full = new Array<number>(EMBED_DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < EMBED_DIMENSIONS; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    const v = (h >>> 0) / 0x100000000 - 0.5;
    full[i] = v;
    norm += v * v;
  }
  const scale = 1 / Math.sqrt(norm);
  return full.slice(0, dims).map((v) => Math.fround(v * scale));
}

const embeddingOf = (req: Json): Json => {
  const content = req.content as Json;
  const dims = typeof req.outputDimensionality === "number" ? req.outputDimensionality : undefined;
  return { values: embedValues(textOfParts(content.parts), dims) };
};

/** The reply of a validated request: {embedding} or {embeddings} in request order. Like
 * gemini-embedding-001, without usageMetadata. */
export function embedResponseJson(method: string, body: Json): string {
  if (method === "embedContent") return JSON.stringify({ embedding: embeddingOf(body) });
  return JSON.stringify({ embeddings: (body.requests as Json[]).map(embeddingOf) });
}
