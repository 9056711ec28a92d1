// The SSE encoders (gateway-api.md 4.4, 4.5). Chat: chunks, the gw.summary chunk or an error
// line, then `data: [DONE]`; upstream chunks go out as the upstream wrote them (`raw`).
// Responses: `event:`/`data:` pairs and no [DONE], as OpenAI sends them. Bytes appear only here;
// a client that disconnects cancels the pipeline's stream.
import type { ResponsesEvent } from "../codecs/responses/stream.ts";
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
  });
  return new Response(body, { headers: { ...headers, ...SSE_HEADERS } });
}

export const sseResponse = (events: AsyncIterable<OutEvent>, headers: Record<string, string>): Response =>
  eventStream(events, chatLine, DONE, headers);

export const responsesSseResponse = (events: AsyncIterable<ResponsesEvent>, headers: Record<string, string>): Response =>
  eventStream(events, responsesLine, null, headers);
