// The Anthropic provider: the Messages API behind gw's OpenAI-shaped Provider contract, as pure
// mappers (request, response, stream, errors) over the one transport (docs/architecture.md "Providers").
import type { Provider, ProviderCall } from "../types.ts";
import { exchange } from "../exchange.ts";
import { DEFAULT_TRANSPORT, type TransportOptions } from "../transport.ts";
import { parseError } from "./errors.ts";
import { buildRequest, type AnthropicOptions } from "./request.ts";
import { parseResponse } from "./response.ts";
import { parseStream } from "./stream.ts";

export type { AnthropicOptions } from "./request.ts";

/** Public endpoint, without /v1 (as the SDK's ANTHROPIC_BASE_URL); ANTHROPIC_BASE_URL overrides it. */
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

export function anthropicProvider(
  id: string,
  options: AnthropicOptions,
  transport: TransportOptions = DEFAULT_TRANSPORT,
): Provider {
  const http = exchange(id, parseError, transport);
  return {
    id,
    async complete(call: ProviderCall) {
      const req = buildRequest({ ...call, request: { ...call.request, stream: false } }, options);
      return parseResponse(await http.text(req, call.controller), id, call.model.upstream_id);
    },
    async stream(call: ProviderCall) {
      const req = buildRequest({ ...call, request: { ...call.request, stream: true } }, options);
      return parseStream(await http.stream(req, call.controller), call.signal, id, call.model.upstream_id);
    },
  };
}
