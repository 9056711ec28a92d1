// The frozen hit deciders read on the holdout (issue 22 item 3; at most three): the logistic regression
// shipped before (logistic-model-before.json) and the shipped network. Per mode precision / recall,
// and balanced precision at recall 15.2% with the cut swept. Usage: bun run bench/semantic-eval/candidates.ts
import { createEmbedder } from "../../src/cache/embedder/create-embedder.ts";
import { HIT_MODEL, SEMANTIC_THRESHOLDS, decideSemanticHit, type SemanticMode } from "../../src/cache/semantic-decision.ts";
import { pairFeatures, questionSide } from "../../src/cache/semantic-pair-features.ts";
import before from "./logistic-model-before.json" with { type: "json" };
import { evaluationTexts, protocolA, protocolC, qqpPairs } from "./data.ts";
import type { Predict } from "./decider-fits.ts";
import { embedAll } from "./embed-all.ts";
import { lookUp } from "./evaluate.ts";
import { splitByGroups } from "./split.ts";

const RECALL = 0.152;
type Cuts = { [M in SemanticMode]: number };

const logistic: Predict = (x) => 1 / (1 + Math.exp(-x.reduce((z, v, j) => z + v * (before.weights[j] ?? 0), before.bias)));
const candidates: Array<{ name: string; predict: Predict | null; cuts: Cuts }> = [
  { name: "logistic (before)", predict: logistic, cuts: before.cuts },
  { name: "network (shipped)", predict: null, cuts: HIT_MODEL.cuts },
];

const pairs = await qqpPairs();
const embedder = createEmbedder("use", { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
const vectors = await embedAll([embedder], evaluationTexts(await protocolA(), await protocolC(pairs)));
await embedder.close();
const holdout = lookUp(await protocolC(splitByGroups(pairs).holdout, "C-holdout"), vectors, embedder.dimensions);
const n = holdout.looked.length;
const pct = (x: number): string => (100 * x).toFixed(1);
console.log(`holdout: ${n} queries`);
for (const c of candidates) {
  const cells: string[] = [];
  for (const [mode, t] of Object.entries(SEMANTIC_THRESHOLDS) as Array<[SemanticMode, number]>) {
    const judged: Array<{ p: number; correct: boolean }> = [];
    for (const l of holdout.looked) {
      const d = decideSemanticHit(l.query, l.candidates, t, { cut: 0 });
      if (!d.hit || d.probability === null) continue;
      const stored = l.candidates.find((x) => x.id === d.id)?.text ?? "";
      const p = c.predict === null ? d.probability : c.predict(Float64Array.from(pairFeatures(questionSide(l.query.text), questionSide(stored), d.cosine, d.margin)));
      judged.push({ p, correct: l.correct.has(stored) });
    }
    const hits = judged.filter((j) => j.p >= c.cuts[mode]);
    const correct = hits.filter((j) => j.correct).length;
    cells.push(`${mode} ${pct(correct / Math.max(1, hits.length))} / ${pct(correct / n)}`);
    if (mode !== "balanced") continue;
    judged.sort((a, b) => b.p - a.p);
    let right = 0;
    const at = judged.findIndex((j) => (right += j.correct ? 1 : 0) >= RECALL * n);
    cells.push(`balanced at recall ${RECALL * 100}%: ${at < 0 ? "not reached" : pct(right / (at + 1))}`);
  }
  console.log(`${c.name}: ${cells.join("; ")}`);
}
