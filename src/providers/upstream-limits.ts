// Bounds on what one upstream attempt may send gw (docs/availability.md, "Upstream calls and
// streams"): body bytes, stream bytes, answer text, all derived from the output the request allows.
// The call stage sets them on the attempt's controller; the exchange and the stream tap read them.
import type { CatalogModel } from "../routing/catalog-types.ts";
import type { ChatCompletion } from "../canonical/completion.ts";
import type { ChatRequest } from "../canonical/chat.ts";
import { UpstreamFailure } from "../canonical/failure.ts";

/** One SSE line or event: far above any real chunk (a whole Gemini function call included). */
export const MAX_SSE_LINE_CHARS = 4 * 1024 * 1024;
/** An error body is read for its message only. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Output tokens assumed when neither the request nor the catalog names a maximum. */
const DEFAULT_OUTPUT_TOKENS = 32_768;
const MIB = 1024 * 1024;
/** Answer text per output token: tokens average 4 characters; long runs (whitespace, dashes)
 * reach 16 and more, and the 1 MiB margin covers short answers made of them. */
const TEXT_CHARS_PER_TOKEN = 16;
/** Wire bytes per output token: a streamed chunk is ~250 bytes of JSON per token, logprobs add
 * ~100 bytes per alternative; 4 KiB leaves room for top_logprobs 20. */
const WIRE_BYTES_PER_TOKEN = 4096;

export interface AttemptLimits {
  /** Characters of answer text (content and tool-call arguments) in the whole answer. */
  textChars: number;
  /** Bytes of a streamed body, chunk framing included. */
  streamBytes: number;
  /** Bytes of a non-streamed body. */
  bodyBytes: number;
}

/** The most output tokens this attempt can legitimately produce, per choice. */
export function outputTokensOf(request: ChatRequest, model: CatalogModel): number {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  const modelMax = model.max_output_tokens > 0 ? model.max_output_tokens : DEFAULT_OUTPUT_TOKENS;
  return typeof asked === "number" && asked > 0 ? Math.min(asked, modelMax) : modelMax;
}

export function limitsFor(request: ChatRequest, model: CatalogModel, maxBodyBytes: number): AttemptLimits {
  const tokens = outputTokensOf(request, model);
  const choices = typeof request.n === "number" && request.n > 1 ? Math.min(request.n, 128) : 1;
  const wire = (tokens * WIRE_BYTES_PER_TOKEN + 4 * MIB) * choices;
  return {
    textChars: (tokens * TEXT_CHARS_PER_TOKEN + MIB) * choices,
    streamBytes: wire,
    bodyBytes: Math.min(maxBodyBytes, wire),
  };
}

/** An embeddings reply: per input one vector of up to 4096 floats (unless fewer are asked for) at
 * up to 24 JSON characters each; a 2048-input batch of 3072-dimension vectors is ~150 MB. */
export function embedLimits(inputs: number, dimensions: number | undefined): AttemptLimits {
  const bytes = inputs * (dimensions ?? 4096) * 24 + MIB;
  return { textChars: bytes, streamBytes: bytes, bodyBytes: bytes };
}

const limits = new WeakMap<AbortController, AttemptLimits>();

export function setAttemptLimits(controller: AbortController, value: AttemptLimits): void {
  limits.set(controller, value);
}

export const attemptLimits = (controller: AbortController | undefined): AttemptLimits | undefined =>
  controller ? limits.get(controller) : undefined;

/** An answer larger than the request allows: aborted, answered upstream_error, never cached. The
 * class model_gone moves on to the next model without retrying this one (the same request would
 * likely run away again) and blames the model, not the provider. */
export const oversize = (provider: string, what: string): UpstreamFailure =>
  new UpstreamFailure({ failureClass: "model_gone", message: `The ${provider} answer was cut: ${what}.`, upstreamStatus: 200, publicCode: "upstream_error" });

/** Characters of answer text in a whole completion (every choice). */
export function answerChars(c: ChatCompletion): number {
  let n = 0;
  for (const choice of c.choices) {
    const content = choice.message.content;
    if (typeof content === "string") n += content.length;
    for (const call of choice.message.tool_calls ?? []) n += call.function.name.length + call.function.arguments.length;
  }
  return n;
}
