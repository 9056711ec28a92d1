// The SSE encoder of POST /messages (docs/anthropic.md "Streaming"): Anthropic's `event:`/`data:`
// pairs, no closing frame. A client that disconnects cancels the pipeline's stream.
import type { AnthropicEvent } from "../ingress/messages/stream.ts";
import { encodeSseEvent } from "../providers/sse-decoder.ts";

const encoder = new TextEncoder();
const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" };

export function anthropicSseResponse(events: AsyncIterable<AnthropicEvent>, headers: Record<string, string>): Response {
  const iterator = events[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(encodeSseEvent(next.value.event, JSON.stringify(next.value.data))));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  }, { highWaterMark: 0 }); // nothing is pulled before a reader asks
  return new Response(body, { headers: { ...headers, ...SSE_HEADERS } });
}
