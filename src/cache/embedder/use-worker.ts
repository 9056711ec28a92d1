// The USE-lite embedder thread (docs/semantic-cache.md "Embedders"): loads the model once, then embeds the batches
// the request thread sends, so a slow embedding never holds up other requests. A second entry point
// of `bun build --compile` (scripts/build.ts), like store/log-worker.ts.
import type { EmbeddingsModel } from "@energetic-ai/embeddings";
import { normalize } from "./types.ts";
import { USE_LITE_DIMENSIONS, loadUseLite } from "./use-model.ts";

declare const self: Worker;

export type UseWorkerRequest = { id: number; texts: string[] };

export type UseWorkerReply =
  | { type: "ready"; loadMs: number }
  | { type: "failed"; error: string }
  /** `vectors`: every text's vector, one after another (texts.length * 512 floats), transferred not copied. */
  | { type: "result"; id: number; vectors: Float32Array; computeMs: number }
  | { type: "error"; id: number; error: string };

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const started = performance.now();
const model: Promise<EmbeddingsModel> = loadUseLite();
model.then(
  () => self.postMessage({ type: "ready", loadMs: performance.now() - started } satisfies UseWorkerReply),
  (err: unknown) => self.postMessage({ type: "failed", error: message(err) } satisfies UseWorkerReply),
);

async function embed(req: UseWorkerRequest): Promise<void> {
  try {
    const m = await model;
    const t0 = performance.now();
    const rows = await m.embed(req.texts);
    const vectors = new Float32Array(rows.length * USE_LITE_DIMENSIONS);
    rows.forEach((row, i) => vectors.set(normalize(Float32Array.from(row)), i * USE_LITE_DIMENSIONS));
    const reply: UseWorkerReply = { type: "result", id: req.id, vectors, computeMs: performance.now() - t0 };
    self.postMessage(reply, [vectors.buffer]);
  } catch (err) {
    self.postMessage({ type: "error", id: req.id, error: message(err) } satisfies UseWorkerReply);
  }
}

self.onmessage = (event: MessageEvent<UseWorkerRequest>) => void embed(event.data);
