// The only network code of gw: sends a prepared upstream request with a deadline and turns
// network failures into upstream failure classes. Keep-alive reuse comes from Bun's fetch pool.
import { clearDeadline, deadlinePassed, watchDeadline } from "./deadlines.ts";
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

/** POSTs the request with the attempt's controller (aborted by a client that goes away, or here
 * when the headers take too long). Resolves with the response (any status); rejects only with
 * UpstreamFailure. The deadline covers the headers only: a stream may then run as long as it runs. */
export async function send(
  req: UpstreamRequest,
  controller: AbortController,
  options: TransportOptions = DEFAULT_TRANSPORT,
): Promise<Response> {
  watchDeadline(controller, options.headersTimeoutMs);
  try {
    return await fetch(req.url, { method: "POST", headers: req.headers, body: req.body, signal: controller.signal });
  } catch (err) {
    if (deadlinePassed(controller)) {
      throw new UpstreamFailure("timeout", `The provider did not answer within ${options.headersTimeoutMs} ms.`);
    }
    if (controller.signal.aborted) throw new UpstreamFailure("transient", "The request was cancelled by the client.");
    const reason = err instanceof Error ? err.message : String(err);
    throw new UpstreamFailure("transient", `Could not reach the provider: ${reason}`);
  } finally {
    clearDeadline(controller);
  }
}
