// The only network code of gw: sends a prepared upstream request with a deadline and turns
// network failures into upstream failure classes. Keep-alive reuse comes from Bun's fetch pool.
import { clearDeadline, deadlinePassed, watchDeadline } from "./deadlines.ts";
import { UpstreamFailure } from "../canonical/failure.ts";

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface TransportOptions {
  /** Time allowed until the upstream's response headers arrive, and for a non-streamed answer
   * until its whole body has arrived (`GW_UPSTREAM_TIMEOUT_MS`). */
  headersTimeoutMs: number;
  /** Longest silence between two reads of a stream (`GW_STREAM_IDLE_TIMEOUT_MS`). */
  streamIdleMs?: number;
  /** Largest non-streamed body (`GW_UPSTREAM_MAX_BODY_MB`); the attempt's own limit may be lower. */
  maxBodyBytes?: number;
}

export const DEFAULT_STREAM_IDLE_MS = 300_000;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_TRANSPORT: TransportOptions = { headersTimeoutMs: 120_000 };

/** POSTs the request with the attempt's controller (aborted by a client that goes away, or here
 * when the deadline passes). Resolves with the response (any status); rejects only with
 * UpstreamFailure. The deadline stays armed on success: the caller reads the body under it and
 * clears it (exchange.ts). */
export async function send(
  req: UpstreamRequest,
  controller: AbortController,
  options: TransportOptions = DEFAULT_TRANSPORT,
): Promise<Response> {
  watchDeadline(controller, options.headersTimeoutMs);
  try {
    return await fetch(req.url, { method: "POST", headers: req.headers, body: req.body, signal: controller.signal });
  } catch (err) {
    clearDeadline(controller);
    const reason = err instanceof Error ? err.message : String(err);
    throw abortFailure(controller, options.headersTimeoutMs) ?? UpstreamFailure.network(`Could not reach the provider: ${reason}`);
  }
}

/** Why the attempt's controller was aborted, as a failure; null when it was not. */
export function abortFailure(controller: AbortController, timeoutMs: number): UpstreamFailure | null {
  const signal = controller.signal;
  if (!signal.aborted) return null;
  if (deadlinePassed(controller)) return UpstreamFailure.timeout(`The provider did not answer within ${timeoutMs} ms.`);
  if (signal.reason instanceof UpstreamFailure) return signal.reason;
  return UpstreamFailure.cancelled();
}
