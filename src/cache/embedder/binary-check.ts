// Entry point that scripts/check-embedder-binary.ts compiles next to the embedder worker and
// store/log-worker.ts, so the bundle root is src/ as in dist/gw: embeds one sentence with USE-lite
// through the default worker path and prints its size, norm and timings as JSON. Not in dist/gw.
import { UseLiteEmbedder } from "./use-lite.ts";

const embedder = new UseLiteEmbedder({ timeoutMs: 30_000 });
const started = performance.now();
const [vector] = await embedder.embed([process.argv[2] ?? "How do I reset my password?"]);
const firstEmbedMs = performance.now() - started;
const again = performance.now();
await embedder.embed(["What is the capital of France?"]);
const secondEmbedMs = performance.now() - again;
let norm = 0;
for (const x of vector ?? []) norm += x * x;
console.log(JSON.stringify({ dimensions: vector?.length ?? 0, norm: Math.sqrt(norm), loadMs: Math.round(embedder.loadMs), firstEmbedMs: Math.round(firstEmbedMs), secondEmbedMs: Math.round(secondEmbedMs) }));
await embedder.close();
