// Maps the canonical chat request to an OpenAI-compatible upstream request (pure).
import type { ChatRequest } from "../../canonical/chat.ts";
import type { ProviderCall } from "../types.ts";
import { capOutputTokens } from "../output-cap.ts";
import type { UpstreamRequest } from "../transport.ts";

export interface OpenAICompatibleOptions {
  baseUrl: string;
  apiKey: string | null;
  /** OpenAI's reasoning models take max_completion_tokens and reject max_tokens. */
  renameMaxTokensForReasoning?: boolean;
  /** Azure OpenAI: the model's upstream id is a deployment name, addressed in the URL with an
   * api-version, and the key goes in an `api-key` header. */
  azure?: { apiVersion: string };
}

export function toUpstreamBody(call: ProviderCall, options: OpenAICompatibleOptions): ChatRequest {
  const out: ChatRequest = { model: call.model.upstream_id, messages: call.request.messages };
  const req = call.request;
  // for-in, not Object.entries: no array of pairs per request (same own keys, same order, since
  // the request is a plain object from JSON.parse).
  for (const k in req) {
    // gw's extension fields never reach here: parse keeps them apart (state.options).
    const v = req[k];
    if (k === "model" || k === "messages" || v === undefined) continue;
    out[k] = v;
  }
  if (out.max_tokens !== undefined) out.max_tokens = capOutputTokens(out.max_tokens, call.model);
  if (out.max_completion_tokens !== undefined) out.max_completion_tokens = capOutputTokens(out.max_completion_tokens, call.model);
  if (options.renameMaxTokensForReasoning && call.model.capabilities.reasoning && out.max_tokens !== undefined) {
    out.max_completion_tokens ??= out.max_tokens;
    delete out.max_tokens;
  }
  // gw meters every stream, so it always asks for the usage chunk.
  if (out.stream) out.stream_options = { ...(out.stream_options ?? {}), include_usage: true };
  return out;
}

/** Where an operation (`chat/completions`, `embeddings`) of this model lives: under the base URL,
 * or for Azure under the model's deployment, with the api-version. */
export function endpointUrl(operation: string, upstreamId: string, options: OpenAICompatibleOptions): string {
  const base = options.baseUrl.replace(/\/+$/, "");
  if (!options.azure) return `${base}/${operation}`;
  const deployment = encodeURIComponent(upstreamId);
  return `${base}/openai/deployments/${deployment}/${operation}?api-version=${encodeURIComponent(options.azure.apiVersion)}`;
}

/** JSON content type and the key: a Bearer token, or Azure's `api-key` header. */
export function jsonHeaders(options: OpenAICompatibleOptions): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) {
    if (options.azure) headers["api-key"] = options.apiKey;
    else headers.authorization = `Bearer ${options.apiKey}`;
  }
  return headers;
}

export function buildRequest(call: ProviderCall, options: OpenAICompatibleOptions): UpstreamRequest {
  const headers = jsonHeaders(options);
  if (call.request.stream) headers.accept = "text/event-stream";
  return { url: endpointUrl("chat/completions", call.model.upstream_id, options), headers, body: JSON.stringify(toUpstreamBody(call, options)) };
}
