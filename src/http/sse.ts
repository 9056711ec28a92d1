// The SSE encoders (docs/api.md "Chat completions", "Responses"): chat chunks then `data: [DONE]`;
// Responses `event:`/`data:` pairs without it. Bytes appear only here; upstream chunks may go out as
// the upstream wrote them (`raw`), and a client that disconnects cancels the pipeline's stream.
import type { ResponsesEvent } from "../ingress/responses/stream.ts";
import type { OutEvent } from "../pipeline/stream-out.ts";
import { encodeSseData, encodeSseEvent } from "../providers/sse-decoder.ts";

const encoder = new TextEncoder();
const DONE = encoder.encode("data: [DONE]\n\n");
const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" };

function chatLine(event: OutEvent): Uint8Array {
  const data = event.type === "chunk" ? (event.raw ?? JSON.stringify(event.chunk)) : JSON.stringify(event.body);
  return encoder.encode(encodeSseData(data));
}

const responsesLine = (event: ResponsesEvent): Uint8Array => encoder.encode(encodeSseEvent(event.type, JSON.stringify(event)));

/** The events, their encoding and the closing frame of an SSE response not yet read: withKeepAlive
 * writes them into its own stream, one stream between the pipeline and the socket instead of two
 * (a read, a promise and a queue fewer per chunk). */
interface EventSource<T> {
  iterator: AsyncIterator<T>;
  encode(event: T): Uint8Array;
  last: Uint8Array | null;
}
const unread = new WeakMap<Response, EventSource<unknown>>();

function eventStream<T>(events: AsyncIterable<T>, encode: (event: T) => Uint8Array, last: Uint8Array | null, headers: Record<string, string>): Response {
  const iterator = events[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        if (last) controller.enqueue(last);
        controller.close();
        return;
      }
      controller.enqueue(encode(next.value));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  }, { highWaterMark: 0 }); // nothing is pulled before a reader asks: withKeepAlive may never read it
  const res = new Response(body, { headers: { ...headers, ...SSE_HEADERS } });
  unread.set(res, { iterator, encode, last });
  return res;
}

export const sseResponse = (events: AsyncIterable<OutEvent>, headers: Record<string, string>): Response =>
  eventStream(events, chatLine, DONE, headers);

export const responsesSseResponse = (events: AsyncIterable<ResponsesEvent>, headers: Record<string, string>): Response =>
  eventStream(events, responsesLine, null, headers);

const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

/** The response with SSE comment lines written whenever gw has sent nothing for `everyMs` (an
 * upstream thinking, a reasoning model's silence), so no proxy or client cuts an idle stream;
 * OpenAI's and the other SDKs skip comment lines. `onEnd` runs once the body ended or was
 * cancelled. One timer per stream, checked every third of the interval, never one per chunk.
 * The source is pumped outside pull(): Bun does not deliver a chunk enqueued while a pull is
 * still pending, which is where a keep-alive would be written. */
export function withKeepAlive(res: Response, everyMs: number, onEnd: () => void): Response {
  const source = res.bodyUsed || res.body?.locked ? undefined : unread.get(res);
  unread.delete(res);
  const reader = source ? null : res.body!.getReader();
  let last = Date.now();
  let open = true;
  let timer: ReturnType<typeof setInterval> | null = null;
  let wake: (() => void) | null = null;
  const end = (): void => {
    if (!open) return;
    open = false;
    if (timer) clearInterval(timer);
    wake?.();
    onEnd();
  };
  async function pump(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    try {
      while (open) {
        let value: Uint8Array | null;
        if (source) {
          // The events encoded here; the closing frame (if any) after the last one.
          const next = await source.iterator.next();
          value = next.done ? source.last : source.encode(next.value);
          if (next.done) source.last = null;
        } else {
          const next = await reader!.read();
          value = next.done ? null : next.value;
        }
        if (!open) return;
        if (value === null) {
          end();
          controller.close();
          return;
        }
        last = Date.now();
        controller.enqueue(value);
        // Backpressure: read on only once the client took what is queued.
        while (open && (controller.desiredSize ?? 0) <= 0) await new Promise<void>((resolve) => (wake = resolve));
      }
    } catch (err) {
      if (!open) return;
      end();
      controller.error(err);
    }
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => {
        if (!open || Date.now() - last < everyMs) return;
        last = Date.now();
        try {
          controller.enqueue(KEEP_ALIVE);
        } catch {
          end(); // the stream closed under us
        }
      }, Math.max(1, Math.floor(everyMs / 3)));
      void pump(controller);
    },
    pull() {
      const resume = wake;
      wake = null;
      resume?.();
    },
    async cancel(reason) {
      end();
      if (source) await source.iterator.return?.(undefined);
      else await reader!.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}
