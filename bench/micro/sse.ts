// mitata: the SSE decoder (decodeSse, upstream streams in) and the SSE encoder (frames out, as
// src/http/sse.ts writes them) over a realistic OpenAI chat stream of 200 content chunks.
import { bench, do_not_optimize, group } from "mitata";
import { sseResponse } from "../../src/http/sse.ts";
import type { OutEvent } from "../../src/pipeline/stream-out.ts";
import { decodeSse, encodeSseData } from "../../src/providers/sse-decoder.ts";
import { runMicro } from "./harness.ts";

const CHUNKS = 200;
const head = `{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8","choices":[`;
const frameData = (delta: string, finish: string | null) =>
  `${head}{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish ? `"${finish}"` : "null"}}],"usage":null}`;
const datas = [
  frameData(`{"role":"assistant","content":"","refusal":null}`, null),
  ...Array.from({ length: CHUNKS }, (_, i) => frameData(`{"content":${JSON.stringify(` token${i}`)}}`, null)),
  frameData("{}", "stop"),
  `${head}],"usage":{"prompt_tokens":1017,"completion_tokens":200,"total_tokens":1217,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
];
const wire = datas.map((d) => `data: ${d}\n\n`).join("") + "data: [DONE]\n\n";
const bytes = new TextEncoder().encode(wire);
const perFrame = [...datas.map((d) => `data: ${d}\n\n`), "data: [DONE]\n\n"].map((f) => new TextEncoder().encode(f));
const split = (size: number) => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
const reads16k = split(16 * 1024);

const streamOf = (parts: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(p);
      c.close();
    },
  });

group(`SSE decoder: ${CHUNKS + 4} frames, ${(bytes.length / 1024).toFixed(1)} KiB`, () => {
  bench("read the stream only (baseline)", async () => {
    const reader = streamOf(perFrame).getReader();
    while (!(await reader.read()).done) { /* drain */ }
  });
  bench("decodeSse, one read per frame", async () => {
    let n = 0;
    for await (const ev of decodeSse(streamOf(perFrame))) n += ev.data.length;
    do_not_optimize(n);
  });
  bench("decodeSse, 16 KiB reads", async () => {
    let n = 0;
    for await (const ev of decodeSse(streamOf(reads16k))) n += ev.data.length;
    do_not_optimize(n);
  });
});

const encoder = new TextEncoder();
const events: OutEvent[] = datas.map((raw) => ({ type: "chunk", chunk: JSON.parse(raw), raw }));
async function* replay(): AsyncGenerator<OutEvent> {
  for (const e of events) yield e;
}

group(`SSE encoder: ${events.length} raw chunks`, () => {
  bench("encodeSseData + TextEncoder.encode per frame", () => {
    let n = 0;
    for (const d of datas) n += encoder.encode(encodeSseData(d)).length;
    do_not_optimize(n);
  });
  bench("sseResponse (src/http/sse.ts), body read to the end", async () => {
    do_not_optimize(await sseResponse(replay(), {}).arrayBuffer());
  });
});

await runMicro();
