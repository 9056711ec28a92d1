// Hit deciders compared by grouped cross-validation on the dev part only (issue 22 item 3): out-of-fold
// precision / recall per mode, precision at recall 15.2% per entry ticket, and the false positives of
// the shipped kind at balanced. Usage: bun run bench/semantic-eval/deciders.ts [--only lr,wide,mlp,stumps] [--errors] [--fold-seed 7]
import { SEMANTIC_THRESHOLDS, type SemanticMode } from "../../src/cache/semantic-decision.ts";
import { TARGETS, fitLogistic, pickCut } from "../../scripts/semantic-fit.ts";
import { fitMlp, fitStumps, fitWideLogistic, type Predict } from "./decider-fits.ts";
import { questionSide } from "../../src/cache/semantic-pair-features.ts";
import { devExamples, type DevExample } from "./dev-examples.ts";

const FOLDS = 5;
const FLOOR = 0.85;
/** The balanced recall before issue 22 on the holdout: the recall the target keeps. */
const RECALL = 0.152;

const seedAt = process.argv.indexOf("--fold-seed");
const set = await devExamples("use", FLOOR, FOLDS, seedAt >= 0 ? Number(process.argv[seedAt + 1]) : 7);
const ex = set.examples;
const only = process.argv.includes("--only") ? (process.argv[process.argv.indexOf("--only") + 1] ?? "").split(",") : null;
console.log(`dev: ${set.pairs} pairs, ${set.queries} queries, ${ex.length} examples at cosine >= ${FLOOR} (${ex.filter((e) => e.y).length} correct)`);

const interactions = (e: DevExample): Float64Array => {
  const out = new Float64Array(e.x.length + 2 * e.u.length);
  out.set(e.x);
  for (let j = 0; j < e.u.length; j++) {
    out[e.x.length + j] = Math.abs(e.u[j]! - e.v[j]!);
    out[e.x.length + e.u.length + j] = e.u[j]! * e.v[j]!;
  }
  return out;
};
const plain = (e: DevExample): Float64Array => Float64Array.from(e.x);
/** Today's features and the neighbourhood: how crowded the query's candidates are, and word order. */
const extended = (e: DevExample): Float64Array => {
  const q = questionSide(e.query);
  const s = questionSide(e.stored);
  const sameWords = q.content.size === s.content.size && [...q.content].every((w) => s.content.has(w));
  const reordered = sameWords && ![...q.bigrams].every((b) => s.bigrams.has(b)) ? 1 : 0;
  const crowd = e.neighbours.filter((c) => c >= e.cosine - 0.03).length - 1;
  const second = e.neighbours[1] ?? 0;
  const last = e.neighbours[e.neighbours.length - 1] ?? 0;
  return Float64Array.from([...e.x, reordered, crowd, Math.min(0.1, (e.neighbours[0] ?? 0) - second) * 10, e.cosine - last]);
};

type Fit = (rows: Float64Array[], y: number[]) => Predict;
const lrFit: Fit = (rows, y) => {
  const m = fitLogistic(rows.map((x, i) => ({ x: [...x], y: y[i] === 1 ? 1 : 0, cosine: 0, fold: 0 })), 1);
  return (x) => m.predict([...x]);
};
const deciders: Array<{ name: string; rows: (e: DevExample) => Float64Array; fit: Fit }> = [
  { name: "lr", rows: plain, fit: lrFit },
  ...[30, 300, 3000].map((l2) => ({ name: `wide-l2=${l2}`, rows: interactions, fit: ((r, y) => fitWideLogistic(r, y, l2).predict) as Fit })),
  ...[1, 10].map((decay) => ({ name: `mlp16-decay=${decay}`, rows: plain, fit: ((r, y) => fitMlp(r, y, 16, decay).predict) as Fit })),
  { name: "mlp8-decay=10", rows: plain, fit: (r, y) => fitMlp(r, y, 8, 10).predict },
  ...[200, 600].map((rounds) => ({ name: `stumps-${rounds}`, rows: plain, fit: ((r, y) => fitStumps(r, y, rounds, 0.1).predict) as Fit })),
  { name: "stumps-400-slow", rows: plain, fit: (r, y) => fitStumps(r, y, 400, 0.05).predict },
  { name: "x-lr", rows: extended, fit: lrFit },
  { name: "x-stumps-200", rows: extended, fit: (r, y) => fitStumps(r, y, 200, 0.1).predict },
  { name: "x-mlp16-decay=10", rows: extended, fit: (r, y) => fitMlp(r, y, 16, 10).predict },
];

const pct = (x: number): string => (100 * x).toFixed(1);

/** Out-of-fold hits at ticket t sorted by probability: precision once `recall` of the queries is correct. */
function precisionAtRecall(p: number[], t: number, recall: number): number {
  const s = ex.map((e, i) => ({ p: p[i]!, y: e.y, c: e.cosine })).filter((e) => e.c >= t).sort((a, b) => b.p - a.p);
  let correct = 0;
  for (let i = 0; i < s.length; i++) {
    correct += s[i]!.y;
    if (correct >= recall * set.queries) return correct / (i + 1);
  }
  return NaN;
}

for (const d of deciders) {
  if (only !== null && !only.some((o) => d.name.startsWith(o))) continue;
  const started = performance.now();
  const rows = ex.map(d.rows);
  const oof = new Array<number>(ex.length).fill(0);
  for (let f = 0; f < FOLDS; f++) {
    const train = ex.flatMap((e, i) => (e.fold === f ? [] : [i]));
    const predict = d.fit(train.map((i) => rows[i]!), train.map((i) => ex[i]!.y));
    ex.forEach((e, i) => {
      if (e.fold === f) oof[i] = predict(rows[i]!);
    });
  }
  const modes = (Object.entries(SEMANTIC_THRESHOLDS) as Array<[SemanticMode, number]>).map(([mode, t]) => {
    const c = pickCut(ex.map((e, i) => ({ p: oof[i]!, y: e.y, admitted: e.cosine >= t })), TARGETS[mode], set.queries);
    return `${mode} ${pct(c.precision)}/${pct(c.recall)}`;
  });
  const tickets = [0.85, 0.87, 0.89, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95].map((t) => `${t}:${pct(precisionAtRecall(oof, t, RECALL))}`);
  console.log(`\n${d.name} (${((performance.now() - started) / 1000).toFixed(0)} s): ${modes.join(", ")}`);
  console.log(`  precision at recall ${RECALL * 100}% by ticket: ${tickets.join(" ")}`);
  if (process.argv.includes("--errors") && d.name === "lr") {
    const cut = pickCut(ex.map((e, i) => ({ p: oof[i]!, y: e.y, admitted: e.cosine >= SEMANTIC_THRESHOLDS.balanced })), TARGETS.balanced, set.queries).cut;
    const wrong = ex.flatMap((e, i) => (e.y === 0 && e.cosine >= SEMANTIC_THRESHOLDS.balanced && oof[i]! >= cut ? [{ e, p: oof[i]! }] : []));
    console.log(`  false positives at balanced: ${wrong.length}`);
    for (const { e, p } of wrong) console.log(`  ${p.toFixed(3)} ${e.cosine.toFixed(3)} | ${e.query} | ${e.stored}`);
  }
}
