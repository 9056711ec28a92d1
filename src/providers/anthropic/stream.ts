// Translates Anthropic's streaming events (message_start, content_block_*, message_delta,
// message_stop, ping, error) into OpenAI chat.completion.chunk events, one event at a time.
import { isObject, type JsonObject } from "../../lib/json.ts";
import { decodeSse, type SseEvent } from "../sse-decoder.ts";
import type { ChatChunk, ChunkChoice, ChunkEvent, Usage } from "../../canonical/completion.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { streamError } from "./errors.ts";
import { completionId, finishReason, toUsage } from "./response.ts";

type Delta = ChunkChoice["delta"];

/** Pure per-stream state: what message_start and message_delta said, and which content block is
 * which OpenAI tool call (tool calls count from 0 whatever text blocks come before them). */
export class StreamTranslator {
  done = false;
  private id = completionId(null);
  private created: number;
  private model: string;
  private roleSent = false;
  private toolIndex = new Map<number, number>();
  private usage: JsonObject = {};
  private stopReason: unknown = null;

  constructor(private readonly provider: string, fallbackModel: string, now = Date.now()) {
    this.model = fallbackModel;
    this.created = Math.floor(now / 1000);
  }

  /** The chunks one upstream event becomes (often none). Throws UpstreamFailure on `error`. */
  translate(event: SseEvent): ChatChunk[] {
    if (event.event === "ping") return [];
    if (event.event === "error") throw streamError(event.data, this.provider);
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      throw UpstreamFailure.badBody(`${this.provider} sent a stream event that is not JSON.`);
    }
    if (!isObject(data)) return [];
    switch (event.event ?? data.type) {
      case "message_start":
        return this.start(data.message);
      case "content_block_start":
        return this.blockStart(data);
      case "content_block_delta":
        return this.blockDelta(data);
      case "message_delta":
        if (isObject(data.delta) && data.delta.stop_reason != null) this.stopReason = data.delta.stop_reason;
        this.mergeUsage(data.usage);
        return [];
      case "message_stop":
        this.done = true;
        return [this.chunk({}, finishReason(this.stopReason)), this.usageChunk()];
      case "error":
        throw streamError(event.data, this.provider);
      default: // content_block_stop and event types added later
        return [];
    }
  }

  private start(message: unknown): ChatChunk[] {
    if (isObject(message)) {
      this.id = completionId(message.id);
      if (typeof message.model === "string") this.model = message.model;
      this.mergeUsage(message.usage);
    }
    return [this.chunk({ content: "" })];
  }

  private blockStart(data: JsonObject): ChatChunk[] {
    const block = data.content_block;
    if (!isObject(block) || block.type !== "tool_use" || typeof data.index !== "number") return [];
    const index = this.toolIndex.size;
    this.toolIndex.set(data.index, index);
    const id = typeof block.id === "string" ? block.id : `toolu_${index}`;
    const name = typeof block.name === "string" ? block.name : "";
    return [this.chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] })];
  }

  private blockDelta(data: JsonObject): ChatChunk[] {
    const delta = data.delta;
    if (!isObject(delta)) return [];
    if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text) {
      return [this.chunk({ content: delta.text })];
    }
    if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json) {
      const index = typeof data.index === "number" ? this.toolIndex.get(data.index) : undefined;
      if (index === undefined) return [];
      return [this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] })];
    }
    return []; // thinking, signature and citation deltas have no OpenAI counterpart
  }

  /** message_delta repeats cumulative totals: a present value replaces, never adds. */
  private mergeUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    for (const [k, v] of Object.entries(usage)) if (typeof v === "number") this.usage[k] = v;
  }

  private chunk(delta: Delta, finish: string | null = null): ChatChunk {
    if (!this.roleSent) {
      delta = { role: "assistant", ...delta };
      this.roleSent = true;
    }
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [{ index: 0, delta, finish_reason: finish }] };
  }

  private usageChunk(): ChatChunk {
    const usage: Usage = toUsage(this.usage);
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage };
  }
}

export async function* parseStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  provider: string,
  fallbackModel: string,
): AsyncGenerator<ChunkEvent> {
  const translator = new StreamTranslator(provider, fallbackModel);
  try {
    for await (const event of decodeSse(body, signal)) {
      for (const chunk of translator.translate(event)) yield { type: "chunk", chunk };
      if (translator.done) break;
    }
  } catch (err) {
    if (err instanceof UpstreamFailure) throw err;
    if (signal.aborted) throw UpstreamFailure.cancelled();
    throw UpstreamFailure.badBody(`The ${provider} stream broke off.`);
  }
  if (!translator.done && !signal.aborted) {
    throw UpstreamFailure.badBody(`The ${provider} stream ended before message_stop.`);
  }
}
