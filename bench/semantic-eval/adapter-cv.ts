// The linear adapter (adapter-fit.ts) against none, by 5-fold cross-validation by question group on
// the dev part only (the holdout is never read): per fold the adapter learns from the other folds'
// pairs, the whole dev cache is re-embedded through it and the fold's queries look up; then raw
// cosine per ticket and the shipped decider's kind (MLP 8, decay 10) out of fold, as deciders.ts.
// Usage: bun run bench/semantic-eval/adapter-cv.ts [--epochs 4] [--decay 1] [--lr 2e-4] [--in-batch 0.5]
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbedder } from "../../src/cache/embedder/create-embedder.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit, type SemanticMode } from "../../src/cache/semantic-decision.ts";
import { pairFeatures, questionSide } from "../../src/cache/semantic-pair-features.ts";
import { TARGETS, pickCut } from "../../scripts/semantic-fit.ts";
import { ADAPTER_DEFAULTS, adapt, fitAdapter, type AdapterOptions } from "./adapter-fit.ts";
import { evaluationTexts, protocolA, protocolC, qqpPairs, type Protocol } from "./data.ts";
import { fitMlp } from "./decider-fits.ts";
import { embedAll } from "./embed-all.ts";
import { lookUp } from "./evaluate.ts";
import { groupsOf, seeded, splitByGroups } from "./split.ts";

const FOLDS = 5;
const FLOOR = 0.85;
const RECALL = 0.152;
const arg = (name: string, fallback: number): number => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const options: AdapterOptions = { ...ADAPTER_DEFAULTS, epochs: arg("--epochs", ADAPTER_DEFAULTS.epochs), decay: arg("--decay", ADAPTER_DEFAULTS.decay), lr: arg("--lr", ADAPTER_DEFAULTS.lr), inBatch: arg("--in-batch", ADAPTER_DEFAULTS.inBatch) };

const all = await qqpPairs();
const embedder = createEmbedder("use", { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
const vectors = await embedAll([embedder], evaluationTexts(await protocolA(), await protocolC(all)));
await embedder.close();
const dims = embedder.dimensions;
const { dev } = splitByGroups(all);
const proto = await protocolC(dev, "C-dev");
// The folds of dev-examples.ts: question groups in a seeded order, dealt round robin.
const pairGroup = groupsOf(dev);
const groupOf = new Map<string, number>();
pairGroup.forEach((g, i) => groupOf.set(dev[i]!.text_b, g));
const order = [...new Set(groupOf.values())];
const random = seeded(7);
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [order[i], order[j]] = [order[j]!, order[i]!];
}
const foldOfGroup = new Map(order.map((g, i) => [g, i % FOLDS]));
const foldOfQuery = (q: string): number => foldOfGroup.get(groupOf.get(q) ?? -1) ?? 0;
const none = new Float32Array(dims);

interface Judged {
  /** Top-1 cosine and whether it is a correct answer (raw cosine rule). */
  top: number;
  topCorrect: boolean;
  /** The decision's judged pair at the floor, when any. */
  x: number[] | null;
  cosine: number;
  y: 0 | 1;
  fold: number;
}

function judge(space: Map<string, Float32Array>, p: Protocol, floor: number): Judged[] {
  return lookUp(p, space, dims).looked.map((l) => {
    const top = l.candidates[0];
    const d = decideSemanticHit(l.query, l.candidates, floor, { cut: 0 });
    const stored = d.hit ? (l.candidates.find((c) => c.id === d.id)?.text ?? "") : "";
    return {
      top: top?.similarity ?? 0,
      topCorrect: top !== undefined && l.correct.has(top.text),
      x: d.hit ? pairFeatures(questionSide(l.query.text), questionSide(stored), d.cosine, d.margin) : null,
      cosine: d.cosine,
      y: d.hit && l.correct.has(stored) ? 1 : 0,
      fold: foldOfQuery(l.query.text),
    };
  });
}

const devTexts = [...new Set([...proto.cached, ...proto.queries.map((q) => q.text)])];
const pct = (x: number): string => (100 * x).toFixed(1);

function report(name: string, judged: Judged[], tickets: { [M in SemanticMode]: number }, floor: number): void {
  const n = judged.length;
  const lines = [`${name}: ${n} queries`];
  for (const [mode, t] of Object.entries(tickets) as Array<[SemanticMode, number]>) {
    const hits = judged.filter((j) => j.top >= t);
    const correct = hits.filter((j) => j.topCorrect).length;
    lines.push(`  raw cosine ${mode} (>= ${t.toFixed(4)}): ${pct(correct / Math.max(1, hits.length))}% / ${pct(correct / n)}%`);
  }
  const byTop = [...judged].sort((a, b) => b.top - a.top);
  let right = 0;
  const at = byTop.findIndex((j) => (right += j.topCorrect ? 1 : 0) >= RECALL * n);
  lines.push(`  raw cosine at recall 15.2%: ${pct(right / (at + 1))}% (cosine ${byTop[at]?.top.toFixed(4)})`);
  const ex = judged.filter((j) => j.x !== null && j.cosine >= floor);
  const rows = ex.map((j) => Float64Array.from(j.x!));
  const oof = new Array<number>(ex.length).fill(0);
  for (let f = 0; f < FOLDS; f++) {
    const train = ex.flatMap((e, i) => (e.fold === f ? [] : [i]));
    const m = fitMlp(train.map((i) => rows[i]!), train.map((i) => ex[i]!.y), 8, 10);
    ex.forEach((e, i) => {
      if (e.fold === f) oof[i] = m.predict(rows[i]!);
    });
  }
  for (const [mode, t] of Object.entries(tickets) as Array<[SemanticMode, number]>) {
    const c = pickCut(ex.map((e, i) => ({ p: oof[i]!, y: e.y, admitted: e.cosine >= t })), TARGETS[mode], n);
    lines.push(`  decider ${mode}: ${pct(c.precision)}% / ${pct(c.recall)}%`);
  }
  const cells: string[] = [];
  for (const t of [floor, tickets.aggressive, tickets.balanced]) {
    const s = ex.map((e, i) => ({ p: oof[i]!, y: e.y, c: e.cosine })).filter((e) => e.c >= t).sort((a, b) => b.p - a.p);
    let correct = 0;
    const k = s.findIndex((e) => (correct += e.y) >= RECALL * n);
    cells.push(`${t.toFixed(4)}: ${k < 0 ? "n/a" : pct(correct / (k + 1))}`);
  }
  lines.push(`  decider at recall 15.2% by ticket: ${cells.join(", ")} (${ex.length} judged, ${ex.filter((e) => e.y).length} correct)`);
  console.log(lines.join("\n"));
}

/** The adapted space's thresholds that admit as many top-1 candidates as the raw ones. */
function matched(rawTops: number[], adaptedTops: number[], t: number): number {
  const count = rawTops.filter((c) => c >= t).length;
  return [...adaptedTops].sort((a, b) => b - a)[Math.max(0, count - 1)] ?? t;
}

const started = performance.now();
// The unadapted lookups do not depend on the options: kept in the temp directory between runs.
const baseFile = join(tmpdir(), "gw-semantic-eval", `adapter-base-${Bun.hash(devTexts.join("\u0000")).toString(16)}.json`);
const base: Judged[] = (await Bun.file(baseFile).exists()) ? await Bun.file(baseFile).json() : judge(vectors, proto, FLOOR);
await Bun.write(baseFile, JSON.stringify(base));
report("none (USE-lite as is)", base, SEMANTIC_THRESHOLDS, FLOOR);
console.log(`options: ${JSON.stringify(options)}`);
const adapted: Judged[] = [];
for (let f = 0; f < FOLDS; f++) {
  const train = dev.flatMap((p, i) => (foldOfGroup.get(pairGroup[i]!) === f ? [] : [{ u: vectors.get(p.text_a) ?? none, v: vectors.get(p.text_b) ?? none, y: p.label === 1 ? (1 as const) : (0 as const), group: pairGroup[i]! }]));
  const a = fitAdapter(train, options);
  const space = new Map(devTexts.map((t) => [t, adapt(a, vectors.get(t) ?? none)]));
  // Low floor: the matched floor is known only once every fold has looked up.
  adapted.push(...judge(space, { ...proto, queries: proto.queries.filter((q) => foldOfQuery(q.text) === f) }, 0.5));
  console.log(`  fold ${f}: ${train.length} training pairs, scale ${a.scale.toFixed(2)} offset ${a.offset.toFixed(2)}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
const rawTops = base.map((j) => j.top);
const adTops = adapted.map((j) => j.top);
const tickets = Object.fromEntries(Object.entries(SEMANTIC_THRESHOLDS).map(([m, t]) => [m, matched(rawTops, adTops, t)])) as { [M in SemanticMode]: number };
report("adapter, tickets matched by hit count", adapted, tickets, matched(rawTops, adTops, FLOOR));
