// The Anthropic provider: the Messages API behind gw's OpenAI-shaped Provider contract, as pure
// mappers (request, response, stream, errors) over the one transport (architecture rule 4).
import type { Provider, ProviderCall } from "../types.ts";
import { DEFAULT_TRANSPORT, send, type TransportOptions } from "../transport.ts";
import { UpstreamFailure } from "../upstream-failure.ts";
import { parseError } from "./errors.ts";
import { buildRequest, type AnthropicOptions } from "./request.ts";
import { parseResponse } from "./response.ts";
import { parseStream } from "./stream.ts";

export type { AnthropicOptions } from "./request.ts";

/** Public endpoint, without /v1 (as the SDK's ANTHROPIC_BASE_URL); ANTHROPIC_BASE_URL overrides it. */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

async function failureOf(res: Response, provider: string): Promise<UpstreamFailure> {
  const text = await res.text().catch(() => "");
  return parseError(res.status, text, res.headers, provider);
}

export function anthropicProvider(
  id: string,
  options: AnthropicOptions,
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
      return parseResponse(text, id, call.model.upstream_id);
    },
    async stream(call: ProviderCall) {
      const res = await send(buildRequest({ ...call, request: { ...call.request, stream: true } }, options), call.controller, transport);
      if (!res.ok) throw await failureOf(res, id);
      if (!res.body) throw new UpstreamFailure("transient", `${id} sent an empty stream.`, res.status, undefined, "upstream_error");
      return parseStream(res.body, call.signal, id, call.model.upstream_id);
    },
  };
}
