// The only network code of gw: sends a prepared upstream request with a deadline and turns
// network failures into upstream failure classes. Keep-alive reuse comes from Bun's fetch pool.
import { UpstreamFailure } from "./upstream-failure.ts";

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface TransportOptions {
  /** Time allowed until the upstream's response headers arrive. */
  headersTimeoutMs: number;
}

export const DEFAULT_TRANSPORT: TransportOptions = { headersTimeoutMs: 120_000 };

/** POSTs the request. Resolves with the response (any status); rejects only with UpstreamFailure. */
export async function send(
  req: UpstreamRequest,
  signal: AbortSignal,
  options: TransportOptions = DEFAULT_TRANSPORT,
): Promise<Response> {
  // The deadline bounds the wait for headers only: fetch's signal also governs the body, so a
  // timer that stayed armed would cut streams that run longer than the time-out.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.headersTimeoutMs);
  try {
    return await fetch(req.url, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.any([signal, deadline.signal]),
    });
  } catch (err) {
    if (deadline.signal.aborted) {
      throw new UpstreamFailure("timeout", `The provider did not answer within ${options.headersTimeoutMs} ms.`);
    }
    if (signal.aborted) throw new UpstreamFailure("transient", "The request was cancelled by the client.");
    const reason = err instanceof Error ? err.message : String(err);
    throw new UpstreamFailure("transient", `Could not reach the provider: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
}
