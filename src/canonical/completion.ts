// The canonical answer: completion, stream chunk and usage, OpenAI's shape whatever the provider.
import type { ToolCall } from "./chat.ts";

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

