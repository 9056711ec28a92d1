// The guard regression sets through a real embedder: test/fixtures/semantic-guard.json (paraphrase
// hits, variant hits; each question alone, or all in one cache) and the one-fact mutant set
// test/fixtures/guard-mutants.json (hits by kind and mode, paraphrases the guard blocks; then by language).
// Usage: bun run bench/semantic-eval/guard-set.ts [--embedder use|ngram]
import { createEmbedder, type EmbedderKind } from "../../src/cache/embedder/create-embedder.ts";
import { dot } from "../../src/cache/embedder/types.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit, learnedFor, type SemanticCandidate } from "../../src/cache/semantic-decision.ts";
import { VectorIndex } from "../../src/cache/vector-index.ts";
import fixture from "../../test/fixtures/semantic-guard.json";
import { languageTable } from "./guard-mutants/by-language.ts";
import { mutantTable } from "./guard-table.ts";

interface Case {
  kind: string;
  question: string;
  paraphrase: string;
  variant: string;
}
const cases = (fixture as { cases: Case[] }).cases;
const i = process.argv.indexOf("--embedder");
const kind = (i >= 0 ? process.argv[i + 1] : "use") as EmbedderKind;
const embedder = createEmbedder(kind, { use: { timeoutMs: 60_000, maxQueue: 10_000 } });
const texts = cases.flatMap((c) => [c.question, c.paraphrase, c.variant]);
const vectors = await embedder.embed(texts);
const mutants = await mutantTable([embedder]);
await embedder.close();
const learned = learnedFor(embedder.name);
const vec = (n: number): Float32Array => vectors[n] ?? new Float32Array(embedder.dimensions);

const index = new VectorIndex({ dimensions: embedder.dimensions });
cases.forEach((_, n) => index.add(n, vec(3 * n), "all"));
/** Candidates for a query: the one cached question alone, or the 5 nearest of all questions. */
function candidates(n: number, query: Float32Array, crowded: boolean): SemanticCandidate[] {
  if (!crowded) return [{ id: n, text: cases[n]?.question ?? "", similarity: dot(vec(3 * n), query) }];
  return index.search(query, "all", 5).map((h) => ({ id: h.id, text: cases[h.id]?.question ?? "", similarity: h.similarity }));
}

console.log(`# Guard regression set: ${cases.length} cases, embedder ${embedder.name}\n`);
console.log("| layout | mode | paraphrases hitting their question | variants hitting anything |");
console.log("|---|---|---|---|");
const misses = new Map<string, number>();
for (const crowded of [false, true]) {
  for (const [mode, t] of Object.entries(SEMANTIC_THRESHOLDS)) {
    let paraphraseHits = 0;
    let variantHits = 0;
    cases.forEach((c, n) => {
      const p = decideSemanticHit({ text: c.paraphrase }, candidates(n, vec(3 * n + 1), crowded), t, { learned });
      if (p.hit && p.id === n) paraphraseHits++;
      else if (mode === "aggressive" && !crowded) misses.set(c.paraphrase, Number(p.cosine.toFixed(3)));
      const v = decideSemanticHit({ text: c.variant }, candidates(n, vec(3 * n + 2), crowded), t, { learned });
      if (v.hit) {
        variantHits++;
        console.error(`VARIANT HIT (${mode}): ${c.variant} -> ${cases[v.id ?? 0]?.question}`);
      }
    });
    const rate = `${paraphraseHits}/${cases.length} (${((100 * paraphraseHits) / cases.length).toFixed(0)}%)`;
    console.log(`| ${crowded ? "all in one cache" : "alone"} | ${mode} ${t} | ${rate} | ${variantHits} |`);
  }
}
const missed = [...misses].sort((a, b) => b[1] - a[1]);
console.log(`\n${missed.length} paraphrases miss in aggressive mode alone; the closest (cosine): ${missed.slice(0, 8).map(([p, s]) => `${s} "${p}"`).join("; ")}`);

console.log("");
for (const line of mutants.lines) console.log(line);
console.log("");
for (const line of languageTable()) console.log(line);
