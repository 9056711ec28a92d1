// One upstream exchange, the same for every adapter: send through the transport, turn an error
// status into the adapter's failure class (its own error parser), and hand back the body as text
// or as a stream. Adapters keep only their pure mappings.
import { send, type TransportOptions, type UpstreamRequest } from "./transport.ts";
import { UpstreamFailure } from "./upstream-failure.ts";

/** An adapter's mapping of an upstream error response (status, body text, headers). */
export type ErrorParser = (status: number, body: string, headers: Headers, provider: string) => UpstreamFailure;

export interface Exchange {
  /** The whole response body, for a non-streamed answer. */
  text(req: UpstreamRequest, controller: AbortController): Promise<string>;
  /** The response body as a stream, once the upstream accepted it. */
  stream(req: UpstreamRequest, controller: AbortController): Promise<ReadableStream<Uint8Array>>;
}

export function exchange(provider: string, parseError: ErrorParser, transport: TransportOptions): Exchange {
  const accepted = async (req: UpstreamRequest, controller: AbortController): Promise<Response> => {
    const res = await send(req, controller, transport);
    if (res.ok) return res;
    const body = await res.text().catch(() => "");
    throw parseError(res.status, body, res.headers, provider);
  };
  return {
    async text(req, controller) {
      const res = await accepted(req, controller);
      return res.text().catch(() => {
        throw new UpstreamFailure("transient", `The ${provider} response broke off.`, res.status, undefined, "upstream_error");
      });
    },
    async stream(req, controller) {
      const res = await accepted(req, controller);
      if (!res.body) throw new UpstreamFailure("transient", `${provider} sent an empty stream.`, res.status, undefined, "upstream_error");
      return res.body;
    },
  };
}
