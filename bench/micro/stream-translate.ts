// mitata: what a streamed answer costs gw per chunk, by upstream format (issue 4 done-when): the
// same 200-chunk answer read directly (SSE decode only: the floor), passed through from an
// OpenAI-format upstream (decode, parse, re-frame the upstream's own JSON), and translated from
// Anthropic's and Gemini's streams into OpenAI chunks (decode, parse, map, serialise, frame).
// Per-chunk cost = (figure - floor) / 200. Frames follow each provider's documented examples.
import { bench, do_not_optimize, group } from "mitata";
import { parseStream as anthropicStream } from "../../src/providers/anthropic/stream.ts";
import { parseStream as googleStream } from "../../src/providers/google/stream.ts";
import { parseStream as openaiStream } from "../../src/providers/openai-compatible/stream.ts";
import { decodeSse, encodeSseData } from "../../src/providers/sse-decoder.ts";
import type { ChunkEvent } from "../../src/canonical/completion.ts";
import { runMicro } from "./harness.ts";

const CHUNKS = 200;
const words = Array.from({ length: CHUNKS }, (_, i) => ` token${i}`);
const encoder = new TextEncoder();
const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

const openaiHead = { id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", object: "chat.completion.chunk", created: 1741570283, model: "gpt-4o-2024-08-06", system_fingerprint: "fp_eb9dce56a8" };
const openaiFrames = [
  sse({ ...openaiHead, choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }], usage: null }),
  ...words.map((w) => sse({ ...openaiHead, choices: [{ index: 0, delta: { content: w }, logprobs: null, finish_reason: null }], usage: null })),
  sse({ ...openaiHead, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }], usage: null }),
  sse({ ...openaiHead, choices: [], usage: { prompt_tokens: 1017, completion_tokens: CHUNKS, total_tokens: 1017 + CHUNKS } }),
  "data: [DONE]\n\n",
];

const message = { id: "msg_01XFDUDYJgAACzvnptvVoYEL", type: "message", role: "assistant", content: [], model: "claude-sonnet-4-5", stop_reason: null, stop_sequence: null, usage: { input_tokens: 1017, output_tokens: 1 } };
const anthropicFrames = [
  sse({ type: "message_start", message }, "message_start"),
  sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
  sse({ type: "ping" }, "ping"),
  ...words.map((w) => sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: w } }, "content_block_delta")),
  sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
  sse({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: CHUNKS } }, "message_delta"),
  sse({ type: "message_stop" }, "message_stop"),
];

const geminiUsage = (n: number) => ({ promptTokenCount: 1017, candidatesTokenCount: n, totalTokenCount: 1017 + n });
const geminiFrames = words.map((w, i) => sse({
  candidates: [{ content: { parts: [{ text: w }], role: "model" }, index: 0, ...(i === CHUNKS - 1 ? { finishReason: "STOP" } : {}) }],
  usageMetadata: geminiUsage(i + 1), modelVersion: "gemini-2.5-flash", responseId: "mAitaLmkHPPlz7IPvtfUqQ4",
}));

const streamOf = (frames: string[]) => {
  const parts = frames.map((f) => encoder.encode(f));
  return () => new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(p);
      c.close();
    },
  });
};
const openaiBody = streamOf(openaiFrames);
const anthropicBody = streamOf(anthropicFrames);
const geminiBody = streamOf(geminiFrames);
const signal = new AbortController().signal;

/** What gw's SSE writer does with each event: the upstream's own JSON when it has it, else serialise. */
async function frameOut(events: AsyncIterable<ChunkEvent>): Promise<number> {
  let n = 0;
  for await (const e of events) n += encoder.encode(encodeSseData(e.raw ?? JSON.stringify(e.chunk))).length;
  return n;
}

group(`streamed answer of ${CHUNKS} content chunks, per stream`, () => {
  bench("read directly: decodeSse only (floor)", async () => {
    let n = 0;
    for await (const ev of decodeSse(openaiBody(), signal)) n += ev.data.length;
    do_not_optimize(n);
  });
  bench("OpenAI-format upstream, passed through", async () => do_not_optimize(await frameOut(openaiStream(openaiBody(), signal, "openai"))));
  bench("Anthropic stream translated to OpenAI chunks", async () =>
    do_not_optimize(await frameOut(anthropicStream(anthropicBody(), signal, "anthropic", "claude-sonnet-4-5"))));
  bench("Gemini stream translated to OpenAI chunks", async () =>
    do_not_optimize(await frameOut(googleStream(geminiBody(), signal, "gemini-2.5-flash"))));
});

await runMicro();
