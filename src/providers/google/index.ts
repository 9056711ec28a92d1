// The Google Gemini provider (Gemini API, generativelanguage.googleapis.com): the pure mappers of
// this folder over the one transport (docs/architecture.md "Providers").
import type { EmbedCall, Provider, ProviderCall } from "../types.ts";
import { exchange } from "../exchange.ts";
import { DEFAULT_TRANSPORT, type TransportOptions } from "../transport.ts";
import { buildEmbedRequests, type EmbedPart, parseEmbedResponse, toEmbeddingResult } from "./embeddings.ts";
import { parseError } from "./errors.ts";
import { buildRequest, type GoogleOptions } from "./request.ts";
import { parseResponse } from "./response.ts";
import { parseStream } from "./stream.ts";

export { GOOGLE_DEFAULT_BASE_URL, type GoogleOptions } from "./request.ts";

export function googleProvider(id: string, options: GoogleOptions, transport: TransportOptions = DEFAULT_TRANSPORT): Provider {
  const http = exchange(id, parseError, transport);
  return {
    id,
    async complete(call: ProviderCall) {
      return parseResponse(await http.text(buildRequest(call, options, false), call.controller), call.model.upstream_id);
    },
    async stream(call: ProviderCall) {
      return parseStream(await http.stream(buildRequest(call, options, true), call.controller), call.signal, call.model.upstream_id);
    },
    async embed(call: EmbedCall) {
      const parts: EmbedPart[] = [];
      // In turn, not in parallel: one controller carries one deadline at a time (deadlines.ts).
      for (const { request, texts } of buildEmbedRequests(call, options)) {
        parts.push(parseEmbedResponse(await http.text(request, call.controller), texts));
      }
      return toEmbeddingResult(call, parts);
    },
  };
}
