// Semantic lookup cost (issue 7 item 4 "done when"): embedding + index search + guard and decision,
// at 10k and 100k cached entries, and the memory (RSS) of a 100k-entry index. The index holds
// synthetic clustered unit vectors (512 dims, like USE-lite's); the query embedding is real.
// Usage: bun run bench/semantic-eval/latency.ts [--sizes 10000,100000] [--embedder use|ngram]
import { createEmbedder, type EmbedderKind } from "../../src/cache/embedder/create-embedder.ts";
import { decideSemanticHit } from "../../src/cache/semantic-decision.ts";
import { guardEntities } from "../../src/cache/semantic-guard.ts";
import { VectorIndex } from "../../src/cache/vector-index.ts";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const sizes = arg("sizes", "10000,100000").split(",").map(Number);
const kind = arg("embedder", "use") as EmbedderKind;
const DIMS = 512;
const QUERIES = 1000;

let seed = 42;
const gauss = (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  const u = (seed + 1) / 2 ** 32;
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos((2 * Math.PI * seed) / 2 ** 32);
};
const unit = (v: Float32Array): Float32Array => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
// Questions cluster by topic: a centre per 50 entries, each entry a noisy copy (cosine ~0.8 to its centre).
const centres = Array.from({ length: 2000 }, () => unit(Float32Array.from({ length: DIMS }, gauss)));
const entry = (i: number): Float32Array => {
  const c = centres[i % centres.length] as Float32Array;
  return unit(c.map((x) => x + 0.035 * gauss()));
};
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
const ms = (x: number): string => x.toFixed(3);
const mib = (): number => process.memoryUsage().rss / 2 ** 20;

// 1. The embedding of one query, through the real embedder (USE-lite: in its worker).
const embedder = createEmbedder(kind);
await embedder.ready();
const questions = Array.from({ length: 200 }, (_, i) => `How do I configure feature number ${i} of the billing dashboard for my team?`);
await embedder.embed(questions.slice(0, 5)); // warm-up
const embedTimes: number[] = [];
for (const q of questions) {
  const t = performance.now();
  await embedder.embed([q]);
  embedTimes.push(performance.now() - t);
}
await embedder.close();
console.log(`# Semantic lookup latency (embedder ${embedder.name})\n`);
console.log(`Embedding, one query at a time: p50 ${ms(quantile(embedTimes, 0.5))} ms, p95 ${ms(quantile(embedTimes, 0.95))} ms\n`);

// 2. Guard + decision: the query's literals are extracted per lookup; a cached entry's are stored with it.
const cached = { id: 1, text: "How can I configure feature 7 of the billing dashboard for my team?", similarity: 0.95, facts: guardEntities("How can I configure feature 7 of the billing dashboard for my team?") };
const decideTimes: number[] = [];
for (let i = 0; i < 2000; i++) {
  const t = performance.now();
  decideSemanticHit({ text: `How do I configure feature ${i % 10} of the billing dashboard for my team?` }, [cached], 0.93);
  decideTimes.push(performance.now() - t);
}
const decideP50 = quantile(decideTimes, 0.5);

console.log("| entries | build (s) | index RSS (MiB) | search k=5 p50 / p95 (ms) | guard + decision p50 (ms) | lookup total p50 (ms) | save / load (ms) |");
console.log("|---|---|---|---|---|---|---|");
for (const n of sizes) {
  Bun.gc(true);
  const before = mib();
  const index = new VectorIndex({ dimensions: DIMS, tag: "bench" });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) index.add(i, entry(i), "project");
  const buildS = (performance.now() - t0) / 1000;
  Bun.gc(true);
  const rss = mib() - before;
  const searchTimes: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const q = unit(entry((i * 7919) % n).map((x) => x + 0.01 * gauss()));
    const t = performance.now();
    index.search(q, "project", 5);
    searchTimes.push(performance.now() - t);
  }
  const dir = `${require("node:os").tmpdir()}/gw-latency-index-${n}`;
  const s0 = performance.now();
  index.save(dir);
  const saveMs = performance.now() - s0;
  const l0 = performance.now();
  const loaded = new VectorIndex({ dimensions: DIMS, tag: "bench" }).load(dir);
  const loadMs = performance.now() - l0;
  require("node:fs").rmSync(dir, { recursive: true, force: true });
  const total = quantile(embedTimes, 0.5) + quantile(searchTimes, 0.5) + decideP50;
  console.log(`| ${n} | ${buildS.toFixed(1)} | ${rss.toFixed(0)} | ${ms(quantile(searchTimes, 0.5))} / ${ms(quantile(searchTimes, 0.95))} | ${ms(decideP50)} | ${ms(total)} | ${saveMs.toFixed(0)} / ${loadMs.toFixed(0)}${loaded ? "" : " (load failed)"} |`);
  index.clear();
}
