// Trains the semantic cache's hit classifier (docs/semantic-cache.md "Hit decision") on the dev part
// of the QQP split only (bench/semantic-eval/split.ts; the holdout is never read) and writes
// src/cache/semantic-decision-model.json. Deterministic. Usage: bun scripts/train-semantic-decision.ts [--dry] [--ngram]
import { createEmbedder } from "../src/cache/embedder/create-embedder.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit, type SemanticMode } from "../src/cache/semantic-decision.ts";
import { FEATURE_NAMES, pairFeatures, questionSide } from "../src/cache/semantic-pair-features.ts";
import { evaluationTexts, protocolA, protocolC, qqpPairs } from "../bench/semantic-eval/data.ts";
import { embedAll } from "../bench/semantic-eval/embed-all.ts";
import { lookUp } from "../bench/semantic-eval/evaluate.ts";
import { groupsOf, seeded, splitByGroups } from "../bench/semantic-eval/split.ts";
import { fitLogistic, pickCut, type Example } from "./semantic-fit.ts";

/** Pairs below this cosine are never judged by a mode; a project's lower semantic_threshold extrapolates. */
const FLOOR = 0.85;
const FOLDS = 5;
const L2 = 1;
/** The precision each mode's cut must reach in cross-validation (its one-sigma lower bound). */
export const TARGETS: { readonly [M in SemanticMode]: number } = { conservative: 0.97, balanced: 0.9, aggressive: 0.8 };

const all = await qqpPairs();
const kind = process.argv.includes("--ngram") ? "ngram" : "use"; // n-grams: a quick check of the script only
const embedder = createEmbedder(kind, { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
const helper = createEmbedder(kind, { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
const vectors = await embedAll([embedder, helper], evaluationTexts(await protocolA(), await protocolC(all)));
await Promise.all([embedder.close(), helper.close()]);

// The dev part only: its cached questions, its queries, its 5 nearest neighbours per query.
const { dev } = splitByGroups(all);
const lookups = lookUp(await protocolC(dev, "C-dev"), vectors, embedder.dimensions);
const groupOf = new Map<string, number>();
groupsOf(dev).forEach((g, i) => groupOf.set((dev[i] as (typeof dev)[number]).text_b, g));
const order = [...new Set(groupOf.values())];
const random = seeded(7);
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [order[i], order[j]] = [order[j] as number, order[i] as number];
}
const foldOf = new Map(order.map((g, i) => [g, i % FOLDS]));

// One example per query: the candidate the decision would judge (the nearest that agrees on literals).
const examples: Example[] = [];
for (const l of lookups.looked) {
  const d = decideSemanticHit(l.query, l.candidates, FLOOR, { cut: 0 });
  if (!d.hit) continue;
  const text = l.candidates.find((c) => c.id === d.id)?.text ?? "";
  const x = pairFeatures(questionSide(l.query.text), questionSide(text), d.cosine, d.margin);
  examples.push({ x, y: l.correct.has(text) ? 1 : 0, cosine: d.cosine, fold: foldOf.get(groupOf.get(l.query.text) ?? -1) ?? 0 });
}
const positives = examples.filter((e) => e.y === 1).length;
console.log(`dev part: ${dev.length} pairs, ${lookups.looked.length} queries; judged at cosine >= ${FLOOR}: ${examples.length} (${positives} correct)`);

// Out-of-fold probabilities pick each mode's cut; the shipped weights are fitted on all of dev.
const oof = new Array<number>(examples.length).fill(0);
for (let f = 0; f < FOLDS; f++) {
  const m = fitLogistic(examples.filter((e) => e.fold !== f), L2);
  examples.forEach((e, i) => {
    if (e.fold === f) oof[i] = m.predict(e.x);
  });
}
const cuts = {} as { [M in SemanticMode]: number };
for (const [mode, ticket] of Object.entries(SEMANTIC_THRESHOLDS) as Array<[SemanticMode, number]>) {
  const pick = pickCut(examples.map((e, i) => ({ p: oof[i] ?? 0, y: e.y, admitted: e.cosine >= ticket })), TARGETS[mode], lookups.looked.length);
  cuts[mode] = pick.cut;
  console.log(`${mode} (cosine >= ${ticket}, target ${TARGETS[mode] * 100}%): cut ${pick.cut}, cross-validated precision ${(100 * pick.precision).toFixed(1)}% recall ${(100 * pick.recall).toFixed(1)}%`);
}
const final = fitLogistic(examples, L2);
const round = (x: number): number => Math.round(x * 1e6) / 1e6;
const out = {
  embedder: embedder.name,
  features: [...FEATURE_NAMES],
  weights: final.weights.map(round),
  bias: round(final.bias),
  cuts,
  trained: { on: "QQP dev split, dev part (bench/semantic-eval/split.ts)", examples: examples.length, positives, floor: FLOOR, l2: L2, folds: FOLDS, targets: TARGETS },
};
console.log(FEATURE_NAMES.map((n, i) => `${n} ${out.weights[i]}`).join(", "), `bias ${out.bias}`);
if (!process.argv.includes("--dry")) await Bun.write(new URL("../src/cache/semantic-decision-model.json", import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
