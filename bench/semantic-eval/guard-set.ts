// The guard regression sets through a real embedder: test/fixtures/semantic-guard.json (paraphrase
// hits, variant hits; each question alone, or all in one cache) and the one-fact mutant set
// test/fixtures/guard-mutants.json (hits by kind and mode, paraphrases the guard blocks).
// Usage: bun run bench/semantic-eval/guard-set.ts [--embedder use|ngram]
import { createEmbedder, type EmbedderKind } from "../../src/cache/embedder/create-embedder.ts";
import { dot } from "../../src/cache/embedder/types.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit, type SemanticCandidate } from "../../src/cache/semantic-decision.ts";
import { VectorIndex } from "../../src/cache/vector-index.ts";
import { disagreement, guardEntities } from "../../src/cache/semantic-guard.ts";
import mutantSet from "../../test/fixtures/guard-mutants.json";
import fixture from "../../test/fixtures/semantic-guard.json";

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
const setTexts = [...new Set([...mutantSet.mutants.flatMap((m) => [m.original, m.variant]), ...mutantSet.paraphrases.flatMap((p) => [p.original, p.paraphrase])])];
const setVectors = await embedder.embed(setTexts);
await embedder.close();
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
      const p = decideSemanticHit({ text: c.paraphrase }, candidates(n, vec(3 * n + 1), crowded), t);
      if (p.hit && p.id === n) paraphraseHits++;
      else if (mode === "aggressive" && !crowded) misses.set(c.paraphrase, Number(p.cosine.toFixed(3)));
      const v = decideSemanticHit({ text: c.variant }, candidates(n, vec(3 * n + 2), crowded), t);
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

// The mutant set: each variant asked against its original alone in the cache.
const setVec = new Map(setTexts.map((t, n) => [t, setVectors[n] ?? new Float32Array(embedder.dimensions)]));
const sim = (a: string, b: string): number => dot(setVec.get(a) ?? new Float32Array(0), setVec.get(b) ?? new Float32Array(0));
const hits = (query: string, cached: string, t: number): boolean => decideSemanticHit({ text: query }, [{ id: 1, text: cached, similarity: sim(query, cached) }], t).hit;
const modes = Object.entries(SEMANTIC_THRESHOLDS);
console.log(`\n# One-fact mutant set: ${mutantSet.mutants.length} mutants, ${mutantSet.paraphrases.length} true paraphrases, embedder ${embedder.name}\n`);
console.log(`| kind | mutants | mutant hits: ${modes.map(([m]) => m).join(" / ")} | paraphrases | blocked by the guard | paraphrase hits: ${modes.map(([m]) => m).join(" / ")} |`);
console.log("|---|---|---|---|---|---|");
for (const kind of [...new Set(mutantSet.mutants.map((m) => m.kind)), "all"]) {
  const ms = mutantSet.mutants.filter((m) => kind === "all" || m.kind === kind);
  const ps = mutantSet.paraphrases.filter((p) => kind === "all" || p.kind === kind);
  const mHits = modes.map(([mode, t]) => {
    const n = ms.filter((m) => hits(m.variant, m.original, t));
    for (const m of n) console.error(`MUTANT HIT (${mode}): ${m.variant} -> ${m.original}`);
    return n.length;
  });
  const blocked = ps.filter((p) => disagreement(guardEntities(p.original), guardEntities(p.paraphrase)) !== null).length;
  const pHits = modes.map(([, t]) => ps.filter((p) => hits(p.paraphrase, p.original, t)).length);
  console.log(`| ${kind} | ${ms.length} | ${mHits.join(" / ")} | ${ps.length} | ${blocked} (${((100 * blocked) / Math.max(1, ps.length)).toFixed(1)}%) | ${pHits.join(" / ")} |`);
}
