// The SSE encoder of chat streams (gateway-api.md 4.4): chunks, the gw.summary chunk, or an error
// line, then `data: [DONE]`. Upstream chunks go out as the upstream wrote them (`raw`).
// Bytes appear only here; a client that disconnects cancels the pipeline's stream.
import type { OutEvent } from "../pipeline/stream-out.ts";
import { encodeSseData } from "../providers/sse-decoder.ts";

const encoder = new TextEncoder();
const DONE = encoder.encode("data: [DONE]\n\n");

function line(event: OutEvent): Uint8Array {
  const data = event.type === "chunk" ? (event.raw ?? JSON.stringify(event.chunk)) : JSON.stringify(event.body);
  return encoder.encode(encodeSseData(data));
}

export function sseResponse(events: AsyncIterable<OutEvent>, headers: Record<string, string>): Response {
  const iterator = events[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        controller.enqueue(DONE);
        controller.close();
        return;
      }
      controller.enqueue(line(next.value));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
  return new Response(body, {
    headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" },
  });
}
