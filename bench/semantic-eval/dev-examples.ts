// The hit decision's training examples, from the dev part of the QQP split only (the holdout is never
// read): one per query, the candidate the decision would judge at cosine >= floor, with its group fold.
// Shared by scripts/train-semantic-decision.ts and bench/semantic-eval/deciders.ts.
import { createEmbedder } from "../../src/cache/embedder/create-embedder.ts";
import { decideSemanticHit } from "../../src/cache/semantic-decision.ts";
import { pairFeatures, questionSide } from "../../src/cache/semantic-pair-features.ts";
import { evaluationTexts, protocolA, protocolC, qqpPairs } from "./data.ts";
import { embedAll } from "./embed-all.ts";
import { lookUp } from "./evaluate.ts";
import { groupsOf, seeded, splitByGroups } from "./split.ts";

export interface DevExample {
  /** pairFeatures of the pair. */
  x: number[];
  y: 0 | 1;
  cosine: number;
  fold: number;
  query: string;
  stored: string;
  /** The two questions' embeddings. */
  u: Float32Array;
  v: Float32Array;
  /** The cosines of all the query's candidates, most similar first. */
  neighbours: number[];
}

export interface DevSet {
  examples: DevExample[];
  /** All dev queries (recall's denominator). */
  queries: number;
  pairs: number;
  embedder: string;
  dimensions: number;
}

/** `foldSeed`: the seeded order of the question groups that deals them into folds. */
export async function devExamples(kind: "use" | "ngram", floor: number, folds: number, foldSeed = 7): Promise<DevSet> {
  const all = await qqpPairs();
  const embedder = createEmbedder(kind, { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
  const helper = createEmbedder(kind, { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
  const vectors = await embedAll([embedder, helper], evaluationTexts(await protocolA(), await protocolC(all)));
  await Promise.all([embedder.close(), helper.close()]);
  const { dev } = splitByGroups(all);
  const lookups = lookUp(await protocolC(dev, "C-dev"), vectors, embedder.dimensions);
  const groupOf = new Map<string, number>();
  groupsOf(dev).forEach((g, i) => groupOf.set((dev[i] as (typeof dev)[number]).text_b, g));
  const order = [...new Set(groupOf.values())];
  const random = seeded(foldSeed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const foldOf = new Map(order.map((g, i) => [g, i % folds]));
  const none = new Float32Array(embedder.dimensions);
  const examples: DevExample[] = [];
  for (const l of lookups.looked) {
    const d = decideSemanticHit(l.query, l.candidates, floor, { cut: 0 });
    if (!d.hit) continue;
    const stored = l.candidates.find((c) => c.id === d.id)?.text ?? "";
    const x = pairFeatures(questionSide(l.query.text), questionSide(stored), d.cosine, d.margin);
    const fold = foldOf.get(groupOf.get(l.query.text) ?? -1) ?? 0;
    examples.push({ x, y: l.correct.has(stored) ? 1 : 0, cosine: d.cosine, fold, query: l.query.text, stored, u: vectors.get(l.query.text) ?? none, v: vectors.get(stored) ?? none, neighbours: l.candidates.map((c) => c.similarity) });
  }
  return { examples, queries: lookups.looked.length, pairs: dev.length, embedder: embedder.name, dimensions: embedder.dimensions };
}
