// The OpenAI-compatible provider: OpenAI itself and every provider that speaks its wire format,
// as options on one base (docs/architecture.md "Providers").
import type { EmbedCall, Provider, ProviderCall } from "../types.ts";
import { exchange } from "../exchange.ts";
import { DEFAULT_TRANSPORT, type TransportOptions } from "../transport.ts";
import { buildEmbeddingsRequest, parseEmbeddings } from "./embeddings.ts";
import { parseError } from "./errors.ts";
import { buildRequest, endpointUrl, jsonHeaders, toUpstreamBody, type OpenAICompatibleOptions } from "./request.ts";
import { parseResponse } from "./response.ts";
import { parseStream } from "./stream.ts";

export function openAICompatibleProvider(
  id: string,
  options: OpenAICompatibleOptions,
  transport: TransportOptions = DEFAULT_TRANSPORT,
): Provider {
  const http = exchange(id, parseError, transport);
  // buildRequest's URL and headers, made once per model and provider rather than per request (a
  // non-streamed request adds no header; fetch only reads them).
  const urls = new Map<string, string>();
  const headers = jsonHeaders(options);
  return {
    id,
    async complete(call: ProviderCall) {
      const upstreamId = call.model.upstream_id;
      let url = urls.get(upstreamId);
      if (url === undefined) urls.set(upstreamId, (url = endpointUrl("chat/completions", upstreamId, options)));
      const body = JSON.stringify(toUpstreamBody({ ...call, request: { ...call.request, stream: false } }, options));
      return parseResponse(await http.text({ url, headers, body }, call.controller), id);
    },
    async stream(call: ProviderCall) {
      return parseStream(await http.stream(buildRequest(call, options), call.controller), call.signal, id);
    },
    async embed(call: EmbedCall) {
      return parseEmbeddings(await http.text(buildEmbeddingsRequest(call, options), call.controller), call, id);
    },
  };
}

/** Public endpoints of the OpenAI-compatible providers; `<NAME>_BASE_URL` overrides each. */
export const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  openai: "https://api.openai.com/v1",
  groq: "https://api.groq.com/openai/v1",
  deepseek: "https://api.deepseek.com/v1",
  xai: "https://api.x.ai/v1",
  mistral: "https://api.mistral.ai/v1",
  together: "https://api.together.xyz/v1",
  openrouter: "https://openrouter.ai/api/v1",
};
