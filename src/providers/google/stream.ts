// Translates Gemini's streamGenerateContent?alt=sse events into OpenAI chat chunks as they arrive
// (never buffering the answer): text deltas, whole function calls as tool-call deltas, the finish
// reason, then one usage chunk. Every SSE event is a full GenerateContentResponse.
import { isObject } from "../../lib/json.ts";
import { newCompletionId } from "../../lib/ids.ts";
import { decodeSse } from "../sse-decoder.ts";
import type { ChatChunk, ChunkChoice, ChunkEvent } from "../../canonical/completion.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { answerText, mapFinishReason, mapUsage, promptBlocked, toToolCall } from "./response.ts";
import type { GenerateContentResponse, UsageMetadata } from "./wire.ts";

const broken = (why: string): UpstreamFailure =>
  UpstreamFailure.badBody(`The Gemini stream ${why}.`);

/** The translation state of one stream (pure apart from minting ids). */
export class GeminiStreamTranslator {
  readonly id = newCompletionId();
  readonly created = Math.floor(Date.now() / 1000);
  private roleSent = false;
  private calls = 0;
  private finished = false;
  /** Gemini's usageMetadata is cumulative: the last one seen is the answer's. */
  private usage: UsageMetadata | undefined;

  constructor(readonly model: string) {}

  /** The chunks for one event; throws UpstreamFailure for an in-stream error or a blocked prompt. */
  push(event: unknown): ChatChunk[] {
    if (!isObject(event)) return [];
    if (isObject(event.error)) throw broken("reported an error");
    const body = event as GenerateContentResponse;
    const blocked = promptBlocked(body);
    if (blocked) throw blocked;
    if (isObject(body.usageMetadata)) this.usage = body.usageMetadata;
    const candidate = body.candidates?.[0];
    if (!isObject(candidate)) return [];
    const out: ChatChunk[] = [];
    let text = "";
    for (const part of candidate.content?.parts ?? []) {
      if (!isObject(part)) continue;
      text += answerText(part);
      const call = toToolCall(part);
      if (!call) continue;
      if (text) out.push(this.chunk({ content: text }, null));
      text = "";
      // Gemini sends each call whole, so one delta carries id, name and the full arguments.
      out.push(this.chunk({ tool_calls: [{ index: this.calls++, ...call }] }, null));
    }
    if (text) out.push(this.chunk({ content: text }, null));
    if (typeof candidate.finishReason === "string" && !this.finished) {
      this.finished = true;
      out.push(this.chunk({}, mapFinishReason(candidate.finishReason, this.calls > 0)));
    }
    return out;
  }

  /** The closing usage chunk (none when Gemini sent no usage: the pipeline then estimates). */
  end(): ChatChunk[] {
    if (!this.finished) throw broken("ended before a finish reason");
    if (!this.usage) return [];
    return [{ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, choices: [], usage: mapUsage(this.usage) }];
  }

  private chunk(delta: ChunkChoice["delta"], finish: string | null): ChatChunk {
    const d = this.roleSent ? delta : { role: "assistant" as const, ...delta };
    this.roleSent = true;
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta: d, finish_reason: finish }],
    };
  }
}

export async function* parseStream(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  model: string,
): AsyncGenerator<ChunkEvent> {
  const translator = new GeminiStreamTranslator(model);
  try {
    for await (const event of decodeSse(body, signal)) {
      if (event.data === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        throw broken("sent an event that is not JSON");
      }
      for (const chunk of translator.push(parsed)) yield { type: "chunk", chunk };
    }
  } catch (err) {
    if (err instanceof UpstreamFailure) throw err;
    if (signal.aborted) throw UpstreamFailure.cancelled();
    throw broken("broke off");
  }
  if (signal.aborted) return;
  for (const chunk of translator.end()) yield { type: "chunk", chunk };
}
