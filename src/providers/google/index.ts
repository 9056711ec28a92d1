// The Google Gemini provider (Gemini API, generativelanguage.googleapis.com): the pure mappers of
// this folder over the one transport (architecture rule 4).
import type { EmbedCall, Provider, ProviderCall } from "../types.ts";
import { DEFAULT_TRANSPORT, send, type TransportOptions } from "../transport.ts";
import { UpstreamFailure } from "../upstream-failure.ts";
import { buildEmbedRequests, type EmbedPart, parseEmbedResponse, toEmbeddingResult } from "./embeddings.ts";
import { parseError } from "./errors.ts";
import { buildRequest, type GoogleOptions } from "./request.ts";
import { parseResponse } from "./response.ts";
import { parseStream } from "./stream.ts";

export { GOOGLE_DEFAULT_BASE_URL, type GoogleOptions } from "./request.ts";

async function failureOf(res: Response, provider: string): Promise<UpstreamFailure> {
  const text = await res.text().catch(() => "");
  return parseError(res.status, text, res.headers, provider);
}

export function googleProvider(id: string, options: GoogleOptions, transport: TransportOptions = DEFAULT_TRANSPORT): Provider {
  return {
    id,
    async complete(call: ProviderCall) {
      const res = await send(buildRequest(call, options, false), call.controller, transport);
      if (!res.ok) throw await failureOf(res, id);
      const text = await res.text().catch(() => {
        throw new UpstreamFailure("transient", `The ${id} response broke off.`, res.status, undefined, "upstream_error");
      });
      return parseResponse(text, call.model.upstream_id);
    },
    async stream(call: ProviderCall) {
      const res = await send(buildRequest(call, options, true), call.controller, transport);
      if (!res.ok) throw await failureOf(res, id);
      if (!res.body) throw new UpstreamFailure("transient", `${id} sent an empty stream.`, res.status, undefined, "upstream_error");
      return parseStream(res.body, call.signal, call.model.upstream_id);
    },
    async embed(call: EmbedCall) {
      const parts: EmbedPart[] = [];
      // In turn, not in parallel: one controller carries one deadline at a time (deadlines.ts).
      for (const { request, texts } of buildEmbedRequests(call, options)) {
        const res = await send(request, call.controller, transport);
        if (!res.ok) throw await failureOf(res, id);
        const text = await res.text().catch(() => {
          throw new UpstreamFailure("transient", `The ${id} response broke off.`, res.status, undefined, "upstream_error");
        });
        parts.push(parseEmbedResponse(text, texts));
      }
      return toEmbeddingResult(call, parts);
    },
  };
}
