// The OpenAI-compatible provider: OpenAI itself and every provider that speaks its wire format,
// as options on one base (architecture rule 4).
import type { EmbedCall, Provider, ProviderCall } from "../types.ts";
import { send, DEFAULT_TRANSPORT, type TransportOptions } from "../transport.ts";
import { UpstreamFailure } from "../upstream-failure.ts";
import { buildEmbeddingsRequest, parseEmbeddings } from "./embeddings.ts";
import { parseError } from "./errors.ts";
import { buildRequest, type OpenAICompatibleOptions } from "./request.ts";
import { parseResponse } from "./response.ts";
import { parseStream } from "./stream.ts";

async function failureOf(res: Response, provider: string): Promise<UpstreamFailure> {
  const text = await res.text().catch(() => "");
  return parseError(res.status, text, res.headers, provider);
}

export function openAICompatibleProvider(
  id: string,
  options: OpenAICompatibleOptions,
  transport: TransportOptions = DEFAULT_TRANSPORT,
): Provider {
  return {
    id,
    async complete(call: ProviderCall) {
      const res = await send(buildRequest({ ...call, request: { ...call.request, stream: false } }, options), call.controller, transport);
      if (!res.ok) throw await failureOf(res, id);
      const text = await res.text().catch(() => {
        throw new UpstreamFailure("transient", `The ${id} response broke off.`, res.status, undefined, "upstream_error");
      });
      return parseResponse(text, id);
    },
    async stream(call: ProviderCall) {
      const res = await send(buildRequest(call, options), call.controller, transport);
      if (!res.ok) throw await failureOf(res, id);
      if (!res.body) throw new UpstreamFailure("transient", `${id} sent an empty stream.`, res.status, undefined, "upstream_error");
      return parseStream(res.body, call.signal, id);
    },
    async embed(call: EmbedCall) {
      const res = await send(buildEmbeddingsRequest(call, options), call.controller, transport);
      if (!res.ok) throw await failureOf(res, id);
      const text = await res.text().catch(() => {
        throw new UpstreamFailure("transient", `The ${id} response broke off.`, res.status, undefined, "upstream_error");
      });
      return parseEmbeddings(text, call, id);
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
