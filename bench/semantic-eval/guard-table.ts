// The one-fact mutant set (test/fixtures/guard-mutants.json) through a real embedder and gw's decision:
// mutant hits by kind and mode (must be 0), paraphrases the guard blocks, paraphrase hits. Shared by
// guard-set.ts and run.ts.
import { dot, type Embedder } from "../../src/cache/embedder/types.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit, learnedFor } from "../../src/cache/semantic-decision.ts";
import { disagreement, guardEntities } from "../../src/cache/semantic-guard.ts";
import mutantSet from "../../test/fixtures/guard-mutants.json";
import { embedAll } from "./embed-all.ts";

export interface GuardTable {
  lines: string[];
  /** Mutant hits over every kind and mode: 0 is the requirement. */
  mutantHits: number;
}

/** Each variant asked against its original alone in the cache, in every mode. */
export async function mutantTable(embedders: Embedder[]): Promise<GuardTable> {
  const embedder = embedders[0];
  if (embedder === undefined) throw new Error("no embedder");
  const texts = [...new Set([...mutantSet.mutants.flatMap((m) => [m.original, m.variant]), ...mutantSet.paraphrases.flatMap((p) => [p.original, p.paraphrase])])];
  const vec = await embedAll(embedders, texts);
  const sim = (a: string, b: string): number => dot(vec.get(a) ?? new Float32Array(0), vec.get(b) ?? new Float32Array(0));
  const learned = learnedFor(embedder.name);
  const hits = (query: string, cached: string, t: number): boolean => decideSemanticHit({ text: query }, [{ id: 1, text: cached, similarity: sim(query, cached) }], t, { learned }).hit;
  const modes = Object.entries(SEMANTIC_THRESHOLDS);
  const lines = [
    `# One-fact mutant set: ${mutantSet.mutants.length} mutants, ${mutantSet.paraphrases.length} true paraphrases, embedder ${embedder.name}${learned ? "" : " (decision as before: the classifier was trained with another embedder)"}\n`,
    `| kind | mutants | mutant hits: ${modes.map(([m]) => m).join(" / ")} | paraphrases | blocked by the guard | paraphrase hits: ${modes.map(([m]) => m).join(" / ")} |`,
    "|---|---|---|---|---|---|",
  ];
  let mutantHits = 0;
  for (const kind of [...new Set(mutantSet.mutants.map((m) => m.kind)), "all"]) {
    const ms = mutantSet.mutants.filter((m) => kind === "all" || m.kind === kind);
    const ps = mutantSet.paraphrases.filter((p) => kind === "all" || p.kind === kind);
    const mHits = modes.map(([mode, t]) => {
      const n = ms.filter((m) => hits(m.variant, m.original, t));
      for (const m of n) console.error(`MUTANT HIT (${mode}): ${m.variant} -> ${m.original}`);
      if (kind !== "all") mutantHits += n.length;
      return n.length;
    });
    const blocked = ps.filter((p) => disagreement(guardEntities(p.original), guardEntities(p.paraphrase)) !== null).length;
    const pHits = modes.map(([, t]) => ps.filter((p) => hits(p.paraphrase, p.original, t)).length);
    lines.push(`| ${kind} | ${ms.length} | ${mHits.join(" / ")} | ${ps.length} | ${blocked} (${((100 * blocked) / Math.max(1, ps.length)).toFixed(1)}%) | ${pHits.join(" / ")} |`);
  }
  return { lines, mutantHits };
}
