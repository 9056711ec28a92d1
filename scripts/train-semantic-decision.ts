// Trains the semantic cache's hit classifier (docs/semantic-cache.md "Hit decision") on the dev part
// of the QQP split only (bench/semantic-eval/split.ts; the holdout is never read) and writes
// src/cache/semantic-decision-model.json. Deterministic. Usage: bun scripts/train-semantic-decision.ts [--dry] [--ngram]
import { SEMANTIC_THRESHOLDS, type SemanticMode } from "../src/cache/semantic-decision.ts";
import { FEATURE_NAMES } from "../src/cache/semantic-pair-features.ts";
import { fitMlp } from "../bench/semantic-eval/decider-fits.ts";
import { devExamples } from "../bench/semantic-eval/dev-examples.ts";
import { TARGETS, pickCut } from "./semantic-fit.ts";

/** Pairs below this cosine are never judged by a mode; a project's lower semantic_threshold extrapolates. */
const FLOOR = 0.85;
const FOLDS = 5;
/** The network: 8 tanh units, weight decay 10 (chosen by bench/semantic-eval/deciders.ts on dev CV). */
const HIDDEN = 8;
const DECAY = 10;

const kind = process.argv.includes("--ngram") ? "ngram" : "use"; // n-grams: a quick check of the script only
const set = await devExamples(kind, FLOOR, FOLDS);
const examples = set.examples;
const rows = examples.map((e) => Float64Array.from(e.x));
const positives = examples.filter((e) => e.y === 1).length;
console.log(`dev part: ${set.pairs} pairs, ${set.queries} queries; judged at cosine >= ${FLOOR}: ${examples.length} (${positives} correct)`);

// Out-of-fold probabilities pick each mode's cut; the shipped weights are fitted on all of dev.
const oof = new Array<number>(examples.length).fill(0);
for (let f = 0; f < FOLDS; f++) {
  const train = examples.flatMap((e, i) => (e.fold === f ? [] : [i]));
  const m = fitMlp(train.map((i) => rows[i]!), train.map((i) => examples[i]!.y), HIDDEN, DECAY);
  examples.forEach((e, i) => {
    if (e.fold === f) oof[i] = m.predict(rows[i]!);
  });
}
const cuts = {} as { [M in SemanticMode]: number };
for (const [mode, ticket] of Object.entries(SEMANTIC_THRESHOLDS) as Array<[SemanticMode, number]>) {
  const pick = pickCut(examples.map((e, i) => ({ p: oof[i] ?? 0, y: e.y, admitted: e.cosine >= ticket })), TARGETS[mode], set.queries);
  cuts[mode] = pick.cut;
  console.log(`${mode} (cosine >= ${ticket}, target ${TARGETS[mode] * 100}%): cut ${pick.cut}, cross-validated precision ${(100 * pick.precision).toFixed(1)}% recall ${(100 * pick.recall).toFixed(1)}%`);
}
const final = fitMlp(rows, examples.map((e) => e.y), HIDDEN, DECAY);
const round = (x: number): number => Math.round(x * 1e6) / 1e6;
const out = {
  embedder: set.embedder,
  features: [...FEATURE_NAMES],
  hidden: final.hidden.map((r) => r.map(round)),
  output: final.output.map(round),
  cuts,
  trained: { on: "QQP dev split, dev part (bench/semantic-eval/split.ts)", model: `MLP, ${HIDDEN} tanh units, weight decay ${DECAY}`, examples: examples.length, positives, floor: FLOOR, folds: FOLDS, targets: TARGETS },
};
if (!process.argv.includes("--dry")) await Bun.write(new URL("../src/cache/semantic-decision-model.json", import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
