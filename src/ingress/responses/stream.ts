// The chat pipeline's stream as a Responses stream: lifecycle events, one output item per message
// and function call with added/delta/done events numbered by sequence_number, then
// response.completed with usage and `gw`, or an `error` event (docs/api.md "Responses").
import type { RequestState } from "../../pipeline/state.ts";
import type { OutEvent } from "../../pipeline/stream-out.ts";
import type { ChunkChoice } from "../../canonical/completion.ts";
import {
  fullResponse, functionCallIdOf, messageIdOf, responseHead, type FunctionCallItem, type MessageItem, type OutputItem,
} from "./response.ts";

/** One event of a Responses stream; `type` is also the SSE event name. */
export interface ResponsesEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

interface OpenCall { item: FunctionCallItem; outputIndex: number }

class ResponsesStreamState {
  private seq = 0;
  readonly items: OutputItem[] = [];
  private message: { item: MessageItem; outputIndex: number; text: string } | null = null;
  private readonly calls = new Map<number, OpenCall>();
  finishReason: string | null = null;

  constructor(private readonly state: RequestState) {}

  event(type: string, fields: Record<string, unknown>): ResponsesEvent {
    return { type, sequence_number: this.seq++, ...fields };
  }

  *start(): Generator<ResponsesEvent> {
    const response = { ...responseHead(this.state, "in_progress"), output: [], usage: null };
    yield this.event("response.created", { response });
    yield this.event("response.in_progress", { response });
  }

  *text(delta: string): Generator<ResponsesEvent> {
    if (!this.message) {
      const item: MessageItem = { type: "message", id: messageIdOf(this.state.requestId), status: "in_progress", role: "assistant", content: [] };
      this.message = { item, outputIndex: this.items.length, text: "" };
      this.items.push(item);
      yield this.event("response.output_item.added", { output_index: this.message.outputIndex, item: { ...item, content: [] } });
      yield this.event("response.content_part.added", {
        item_id: item.id, output_index: this.message.outputIndex, content_index: 0, part: { type: "output_text", text: "", annotations: [] },
      });
    }
    if (delta === "") return;
    this.message.text += delta;
    yield this.event("response.output_text.delta", {
      item_id: this.message.item.id, output_index: this.message.outputIndex, content_index: 0, delta, logprobs: [],
    });
  }

  *toolCall(d: NonNullable<ChunkChoice["delta"]["tool_calls"]>[number]): Generator<ResponsesEvent> {
    let open = this.calls.get(d.index);
    if (!open) {
      const n = this.calls.size;
      const item: FunctionCallItem = {
        type: "function_call", id: functionCallIdOf(this.state.requestId, n), call_id: d.id ?? `call_${n}`,
        name: d.function?.name ?? "", arguments: "", status: "in_progress",
      };
      open = { item, outputIndex: this.items.length };
      this.calls.set(d.index, open);
      this.items.push(item);
      yield this.event("response.output_item.added", { output_index: open.outputIndex, item: { ...item } });
    }
    const piece = d.function?.arguments ?? "";
    if (piece === "") return;
    open.item.arguments += piece;
    yield this.event("response.function_call_arguments.delta", { item_id: open.item.id, output_index: open.outputIndex, delta: piece });
  }

  /** Closes every open item in output order, then completes the response. */
  *finish(gw: Record<string, unknown>): Generator<ResponsesEvent> {
    if (this.items.length === 0) yield* this.text("");
    const done = this.finishReason === "length" || this.finishReason === "content_filter" ? "incomplete" : "completed";
    for (const [outputIndex, item] of this.items.entries()) {
      item.status = item.type === "function_call" ? "completed" : done;
      if (item.type === "message") {
        const text = this.message!.text;
        const part = { type: "output_text" as const, text, annotations: [] };
        item.content = [part];
        yield this.event("response.output_text.done", { item_id: item.id, output_index: outputIndex, content_index: 0, text, logprobs: [] });
        yield this.event("response.content_part.done", { item_id: item.id, output_index: outputIndex, content_index: 0, part });
      } else {
        yield this.event("response.function_call_arguments.done", { item_id: item.id, output_index: outputIndex, name: item.name, arguments: item.arguments });
      }
      yield this.event("response.output_item.done", { output_index: outputIndex, item });
    }
    yield this.event("response.completed", { response: fullResponse(this.state, this.items, this.finishReason, gw) });
  }
}

/** The lifecycle events go out once the pipeline's stream has started, so that a client leaving
 * at any point still reaches its cleanup (metering and the log row run in its finally). */
export async function* responsesStream(state: RequestState, events: AsyncIterable<OutEvent>): AsyncGenerator<ResponsesEvent> {
  const out = new ResponsesStreamState(state);
  let started = false;
  for await (const event of events) {
    if (!started) {
      started = true;
      yield* out.start();
    }
    if (event.type === "chunk") {
      for (const choice of event.chunk.choices) {
        if (choice.index !== 0) continue;
        if (choice.delta.content) yield* out.text(choice.delta.content);
        for (const call of choice.delta.tool_calls ?? []) yield* out.toolCall(call);
        if (choice.finish_reason) out.finishReason = choice.finish_reason;
      }
    } else if (event.type === "summary") {
      yield* out.finish(event.body.gw as Record<string, unknown>);
    } else {
      // OpenAI's error event carries code/message/param at the top; gw's envelope rides in `error`.
      const error = event.body.error as { code?: unknown; message?: unknown; param?: unknown };
      yield out.event("error", { code: error.code ?? null, message: error.message ?? null, param: error.param ?? null, error });
    }
  }
}
