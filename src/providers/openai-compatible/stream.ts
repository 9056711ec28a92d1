// Reads an OpenAI-compatible SSE stream into typed chunk events, keeping each upstream data line
// as `raw` so the encoder passes it through without re-serialising (design card: zero-copy).
import { decodeSseBatches } from "../sse-decoder.ts";
import type { ChatChunk, ChunkEvent } from "../../canonical/completion.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { isObject } from "../../lib/json.ts";

/** Choices gw and the codecs can read: objects whose delta, when present, is an object with a
 * string-or-null content and an array of tool calls. A missing delta (some compatible servers
 * leave it out of the final chunk) reads as an empty one; `"delta": null` and the like are the
 * upstream's fault, answered upstream_error rather than crashing a reader (issue 14). */
function wellFormed(choices: unknown[]): boolean {
  for (const c of choices) {
    if (!isObject(c)) return false;
    if (c.delta === undefined) {
      c.delta = {};
      continue;
    }
    const d = c.delta;
    if (!isObject(d)) return false;
    if (d.content !== undefined && d.content !== null && typeof d.content !== "string") return false;
    if (d.tool_calls !== undefined && d.tool_calls !== null && !validCalls(d.tool_calls)) return false;
  }
  return true;
}

const validCalls = (calls: unknown): boolean =>
  Array.isArray(calls) && calls.every((t) => isObject(t) && (t.function === undefined || isObject(t.function)));

/** One data line as a chunk event; null for a line gw skips (empty, not an object, no choices). */
function chunkEvent(data: string, provider: string): ChunkEvent | null {
  if (data === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw UpstreamFailure.badBody(`${provider} sent a stream line that is not JSON.`);
  }
  if (!isObject(parsed)) return null;
  if (isObject(parsed.error)) {
    throw UpstreamFailure.badBody(`${provider} reported an error mid-stream.`);
  }
  if (!Array.isArray(parsed.choices)) return null;
  if (!wellFormed(parsed.choices)) {
    throw UpstreamFailure.badBody(`${provider} sent a malformed stream chunk.`);
  }
  return { type: "chunk", chunk: parsed as ChatChunk, raw: data };
}

/** The upstream's chunks, one async step per upstream read (decodeSseBatches), not per event. */
export async function* parseStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  provider: string,
): AsyncGenerator<ChunkEvent> {
  let done = false;
  try {
    read: for await (const events of decodeSseBatches(body, signal)) {
      for (const { data } of events) {
        if (data === "[DONE]") {
          done = true;
          break read;
        }
        const event = chunkEvent(data, provider);
        if (event) yield event;
      }
    }
  } catch (err) {
    if (err instanceof UpstreamFailure) throw err;
    if (signal.aborted) throw UpstreamFailure.cancelled();
    throw UpstreamFailure.badBody(`The ${provider} stream broke off.`);
  }
  if (!done && !signal.aborted) {
    throw UpstreamFailure.badBody(`The ${provider} stream ended before [DONE].`);
  }
}
