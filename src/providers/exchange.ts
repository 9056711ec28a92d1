// One upstream exchange, the same for every adapter: send through the transport, turn an error
// status into the adapter's failure class (its own error parser), and hand back the body as text
// or as a stream, each read under a deadline and a size bound (docs/availability.md).
import { clearDeadline, watchIdle } from "./deadlines.ts";
import { abortFailure, DEFAULT_MAX_BODY_BYTES, DEFAULT_STREAM_IDLE_MS, send, type TransportOptions, type UpstreamRequest } from "./transport.ts";
import { attemptLimits, MAX_ERROR_BODY_BYTES, oversize } from "./upstream-limits.ts";
import { UpstreamFailure } from "../canonical/failure.ts";

/** An adapter's mapping of an upstream error response (status, body text, headers). */
export type ErrorParser = (status: number, body: string, headers: Headers, provider: string) => UpstreamFailure;

export interface Exchange {
  /** The whole response body, for a non-streamed answer. */
  text(req: UpstreamRequest, controller: AbortController): Promise<string>;
  /** The response body as a stream, once the upstream accepted it. */
  stream(req: UpstreamRequest, controller: AbortController): Promise<ReadableStream<Uint8Array>>;
}

const broken = (provider: string): UpstreamFailure =>
  UpstreamFailure.badBody(`The ${provider} response broke off.`);

/** Reads a body whole, still under the attempt's deadline (armed by send). Past `max` bytes the
 * upstream is aborted: `truncate` keeps what came (an error body's message), else it fails. */
async function readBody(
  body: ReadableStream<Uint8Array> | null, controller: AbortController, max: number, truncate: boolean, provider: string, timeoutMs: number,
): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) break;
      size += next.value.byteLength;
      if (size > max) {
        if (truncate) break;
        throw oversize(provider, `its body passed ${max} bytes`);
      }
      parts.push(next.value);
    }
  } catch (err) {
    if (err instanceof UpstreamFailure) {
      controller.abort(err);
      throw err;
    }
    throw abortFailure(controller, timeoutMs) ?? broken(provider);
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}

/** The stream as the adapter reads it: every read re-arms the idle limit, and past the attempt's
 * byte bound the upstream is aborted. Failures reach the adapter's decoder as UpstreamFailure
 * (also as the controller's abort reason, which decodeSse rethrows). `idle` is the exchange's one
 * idle failure (immutable), not an Error built, stack and all, on every stream's first-byte path. */
function guardStream(
  body: ReadableStream<Uint8Array>, controller: AbortController, idleMs: number, idle: UpstreamFailure, maxBytes: number, provider: string,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let size = 0;
  watchIdle(controller, idleMs, idle);
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch {
        clearDeadline(controller);
        c.error(abortFailure(controller, idleMs) ?? broken(provider));
        return;
      }
      if (next.done) {
        clearDeadline(controller);
        c.close();
        return;
      }
      size += next.value.byteLength;
      if (size > maxBytes) {
        const failure = oversize(provider, `the stream passed ${maxBytes} bytes`);
        clearDeadline(controller);
        controller.abort(failure);
        c.error(failure);
        return;
      }
      watchIdle(controller, idleMs, idle);
      c.enqueue(next.value);
    },
    cancel(reason) {
      clearDeadline(controller);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

export function exchange(provider: string, parseError: ErrorParser, transport: TransportOptions): Exchange {
  const timeoutMs = transport.headersTimeoutMs;
  const idleMs = transport.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS;
  let idle: UpstreamFailure | null = null; // made by the first stream
  /** An error status: its body read for the message (bounded), then the adapter's failure. */
  const refused = async (res: Response, controller: AbortController): Promise<never> => {
    const body = await readBody(res.body, controller, MAX_ERROR_BODY_BYTES, true, provider, timeoutMs).catch(() => "");
    clearDeadline(controller);
    throw parseError(res.status, body, res.headers, provider);
  };
  const accepted = async (req: UpstreamRequest, controller: AbortController): Promise<Response> => {
    const res = await send(req, controller, transport);
    return res.ok ? res : refused(res, controller);
  };
  return {
    async text(req, controller) {
      // send, not accepted: one async frame fewer on every non-streamed answer.
      const res = await send(req, controller, transport);
      if (!res.ok) await refused(res, controller);
      const max = attemptLimits(controller)?.bodyBytes ?? transport.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      const declared = Number(res.headers.get("content-length") ?? NaN);
      try {
        if (declared > max) {
          const failure = oversize(provider, `its body declares ${declared} bytes, over ${max}`);
          controller.abort(failure);
          throw failure;
        }
        // A declared length within the bound: Bun's own text() (the deadline still aborts it), far
        // cheaper than reading chunks here. Without one, chunks are counted as they come.
        if (!Number.isInteger(declared)) return await readBody(res.body, controller, max, false, provider, timeoutMs);
        try {
          return await res.text();
        } catch {
          throw abortFailure(controller, timeoutMs) ?? broken(provider);
        }
      } finally {
        clearDeadline(controller);
      }
    },
    async stream(req, controller) {
      const res = await accepted(req, controller);
      clearDeadline(controller);
      if (!res.body) throw UpstreamFailure.badBody(`${provider} sent an empty stream.`, res.status);
      const maxBytes = attemptLimits(controller)?.streamBytes ?? Number.POSITIVE_INFINITY;
      idle ??= UpstreamFailure.timeout(`The ${provider} stream sent nothing for ${idleMs} ms.`, 200);
      return guardStream(res.body, controller, idleMs, idle, maxBytes, provider);
    },
  };
}
