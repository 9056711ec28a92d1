// The chat pipeline's stream as Anthropic's event sequence (docs/anthropic.md "Streaming"):
// message_start and a ping, one content block at a time (text_delta, input_json_delta), then
// message_delta with stop_reason and usage, message_stop, and gw's summary as `gw.summary`.
import { countMessageTokens } from "../../analysis/tokens.ts";
import { ERROR_CODES, type ErrorCode } from "../../errors/codes.ts";
import type { ChunkChoice } from "../../canonical/completion.ts";
import type { OutEvent } from "../../pipeline/stream-out.ts";
import type { RequestState } from "../../pipeline/state.ts";
import { anthropicErrorBody, gwEnvelopeOf } from "./errors.ts";
import { messageIdOf, modelOf, stopReasonOf, usageOf } from "./response.ts";

export interface AnthropicEvent {
  event: string;
  data: Record<string, unknown>;
}

const ev = (event: string, data: Record<string, unknown> = {}): AnthropicEvent => ({ event, data: { type: event, ...data } });

type ToolDelta = NonNullable<ChunkChoice["delta"]["tool_calls"]>[number];

class MessagesStreamState {
  finishReason: string | null = null;
  /** Blocks started so far; the last one is open while `open`. */
  private blocks = 0;
  private open: "text" | "tool" | null = null;
  /** Chat's tool call index -> its tool_use block's index. */
  private tools = new Map<number, number>();

  constructor(private readonly state: RequestState) {}

  start(): AnthropicEvent[] {
    // The prompt's count before the answer: what Anthropic's message_start carries. The upstream's
    // own figures follow in message_delta.
    const input = this.state.request ? countMessageTokens(this.state.request.messages) : 0;
    const message = {
      id: messageIdOf(this.state.requestId), type: "message", role: "assistant", model: modelOf(this.state), content: [],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    };
    return [ev("message_start", { message }), ev("ping")];
  }

  private close(out: AnthropicEvent[]): void {
    if (this.open === null) return;
    out.push(ev("content_block_stop", { index: this.blocks - 1 }));
    this.open = null;
  }

  private begin(out: AnthropicEvent[], kind: "text" | "tool", block: Record<string, unknown>): number {
    this.close(out);
    const index = this.blocks++;
    this.open = kind;
    out.push(ev("content_block_start", { index, content_block: block }));
    return index;
  }

  text(delta: string, out: AnthropicEvent[]): void {
    if (this.open !== "text") this.begin(out, "text", { type: "text", text: "" });
    if (delta) out.push(ev("content_block_delta", { index: this.blocks - 1, delta: { type: "text_delta", text: delta } }));
  }

  toolCall(d: ToolDelta, out: AnthropicEvent[]): void {
    let index = this.tools.get(d.index);
    if (index === undefined) {
      const block = { type: "tool_use", id: d.id ?? `toolu_${this.tools.size}`, name: d.function?.name ?? "", input: {} };
      index = this.begin(out, "tool", block);
      this.tools.set(d.index, index);
    }
    // A late piece of an earlier call (chat may interleave parallel calls) still names its block.
    const piece = d.function?.arguments ?? "";
    if (piece) out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
  }

  finish(gw: Record<string, unknown>): AnthropicEvent[] {
    const out: AnthropicEvent[] = [];
    if (this.blocks === 0) this.text("", out);
    this.close(out);
    out.push(ev("message_delta", { delta: { stop_reason: stopReasonOf(this.finishReason), stop_sequence: null }, usage: usageOf(this.state.usage) }));
    out.push(ev("message_stop"));
    out.push(ev("gw.summary", { gw }));
    return out;
  }
}

/** An in-stream failure as Anthropic's `error` event, typed by gw's status for its code. */
function errorEvent(body: { error: Record<string, unknown> }, requestId: string): AnthropicEvent {
  const error = gwEnvelopeOf(body) ?? { message: "The gateway failed to process the request.", code: null, param: null, category: null };
  const status = error.code && error.code in ERROR_CODES ? ERROR_CODES[error.code as ErrorCode].status : 500;
  return { event: "error", data: anthropicErrorBody(status, error, requestId) };
}

/** The events go out once the pipeline's stream has started, so that a client leaving at any
 * point still reaches its cleanup (metering and the log row run in its finally). */
export async function* messagesStream(state: RequestState, events: AsyncIterable<OutEvent>): AsyncGenerator<AnthropicEvent> {
  const out = new MessagesStreamState(state);
  let started = false;
  for await (const event of events) {
    if (!started) {
      started = true;
      yield* out.start();
    }
    if (event.type === "chunk") {
      const pending: AnthropicEvent[] = [];
      for (const choice of event.chunk.choices) {
        if (choice.index !== 0) continue;
        if (choice.delta.content) out.text(choice.delta.content, pending);
        for (const call of choice.delta.tool_calls ?? []) out.toolCall(call, pending);
        if (choice.finish_reason) out.finishReason = choice.finish_reason;
      }
      yield* pending;
    } else if (event.type === "summary") {
      yield* out.finish(event.body.gw as Record<string, unknown>);
    } else {
      yield errorEvent(event.body, state.requestId);
    }
  }
}
