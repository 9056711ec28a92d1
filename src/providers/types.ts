// The canonical shapes every provider maps to and from: OpenAI's chat request, completion and
// stream chunk (gateway-api.md 4.4), plus the failure classes that decide fallback.
import type { CatalogModel } from "../routing/catalog-types.ts";

export interface ContentPart {
  type: string;
  text?: string;
  image_url?: { url: string; detail?: string } | string;
  [extra: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [extra: string]: unknown;
}

export interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ToolChoice = "none" | "auto" | "required" | { type: "function"; function: { name: string } };

export interface ResponseFormat {
  type: "text" | "json_object" | "json_schema";
  json_schema?: { name: string; schema?: Record<string, unknown>; strict?: boolean | null; description?: string };
}

/** The OpenAI chat request as gw forwards it; unknown OpenAI fields (seed, n, logprobs...) ride along. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[] | null;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  [extra: string]: unknown;
}

/** Canonical usage, OpenAI's convention whatever the provider: prompt_tokens counts every input
 * token (uncached, cache reads and cache writes), completion_tokens every output token (reasoning
 * included). `cache_write_tokens` is gw's extension for providers that bill cache writes
 * (Anthropic); adapters map their own fields onto this shape (providers/usage.ts). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; [extra: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface ChatChoice {
  index: number;
  message: { role: "assistant"; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null };
  finish_reason: string | null;
  logprobs?: unknown;
}

/** The upstream's own JSON text of a completion, when it came over HTTP (see completion-body.ts). */
export const RAW_BODY: unique symbol = Symbol("gw.rawBody");

export interface ChatCompletion {
  [RAW_BODY]?: string;
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatChoice[];
  usage: Usage;
  [extra: string]: unknown;
}

export interface ChunkChoice {
  index: number;
  delta: {
    role?: "assistant";
    content?: string | null;
    tool_calls?: Array<{ index: number; id?: string; type?: "function"; function?: { name?: string; arguments?: string } }>;
  };
  finish_reason: string | null;
  logprobs?: unknown;
}

export interface ChatChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: ChunkChoice[];
  usage?: Usage | null;
  [extra: string]: unknown;
}

/** A stream stays typed until the SSE encoder; `raw` is the upstream's own JSON text, sent as is. */
export interface ChunkEvent {
  type: "chunk";
  chunk: ChatChunk;
  raw?: string;
}

/** Why an upstream attempt failed; decides retry and fallback (architecture rule 2). */
export type FailureClass =
  | "rate_limit" | "transient" | "timeout" | "credential" | "caller" | "context_length" | "content_filter" | "model_gone";

export interface ProviderCall {
  model: CatalogModel;
  request: ChatRequest;
  /** This attempt's controller: aborted when the client goes away or the deadline passes. */
  controller: AbortController;
  signal: AbortSignal;
  /** 0 for the first attempt of the request, 1 for the next... */
  attempt: number;
}

/** An embeddings call in canonical form: always a list of texts; floats come back. */
export interface EmbedCall {
  model: CatalogModel;
  input: string[];
  /** Requested vector size, where the model supports it. */
  dimensions?: number;
  controller: AbortController;
  signal: AbortSignal;
  /** 0 for the first attempt of the request, 1 for its retry (test scenarios fail the first only). */
  attempt?: number;
  /** The model name as the caller sent it: the sandbox reads `gw-test:<name>` scenarios from it. */
  requestedModel?: string;
}

/** Canonical embeddings result (OpenAI's shape with float vectors, in input order). */
export interface EmbeddingResult {
  model: string;
  data: Array<{ index: number; embedding: number[] }>;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** What the pipeline calls. HTTP providers are an adapter plus the transport; sandbox simulates. */
export interface Provider {
  id: string;
  complete(call: ProviderCall): Promise<ChatCompletion>;
  /** Resolves once the upstream accepted the stream (so failures before that can fall back). */
  stream(call: ProviderCall): Promise<AsyncIterable<ChunkEvent>>;
  /** Embeddings, for providers that serve them (OpenAI-compatible, Gemini). */
  embed?(call: EmbedCall): Promise<EmbeddingResult>;
}
