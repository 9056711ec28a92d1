// The semantic cache evaluation (issue 7 item 4, issue 22 item 6): protocol A (GPTCache's mock data)
// and C (QQP dev: its dev part and a holdout carved out by question groups, split.ts) through the real
// embedder, index, guard and decision; precision and recall per mode and rule, and threshold sweeps.
// Usage: bun run bench/semantic-eval/run.ts [--embedder use|ngram] [--workers 2] [--no-cache] [--sweep]
import { createEmbedder, type EmbedderKind } from "../../src/cache/embedder/create-embedder.ts";
import { HIT_MODEL, SEMANTIC_THRESHOLDS, learnedFor, type SemanticMode } from "../../src/cache/semantic-decision.ts";
import { evaluationTexts, protocolA, protocolC, qqpPairs, type Protocol } from "./data.ts";
import { embedAll } from "./embed-all.ts";
import { RULES, lookUp, precisionAtRecall, score, type Lookups, type Score } from "./evaluate.ts";
import { mutantTable } from "./guard-table.ts";
import { splitByGroups } from "./split.ts";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const kind = arg("embedder", "use") as EmbedderKind;
if (kind !== "use" && kind !== "ngram") throw new Error("--embedder is use or ngram");
const workers = kind === "use" ? Number(arg("workers", "2")) : 1;

/** Balanced recall on the holdout before issue 22's decision: the recall the learned one must keep. */
const RECALL_BEFORE = 0.152;
const pct = (x: number): string => (100 * x).toFixed(1);
const cell = (s: Score): string => `${pct(s.precision)} / ${pct(s.recall)}`;

/** Per mode, each protocol's precision / recall under every rule. */
function table(all: Array<{ p: Protocol; lookups: Lookups }>): void {
  console.log("\n## Per mode: precision / recall (%); recall = correct hits / all queries\n");
  console.log(`Rules: raw cosine of the nearest; cosine + literal guard; before (issue 22: guard and ambiguity penalty); gw decision (guard, then the classifier at the mode's probability cut).\n`);
  console.log(`| mode | threshold, cut | protocol | ${RULES.join(" | ")} | gw decision: hits, correct |`);
  console.log(`|---|---|---|${RULES.map(() => "---|").join("")}---|`);
  for (const [mode, t] of Object.entries(SEMANTIC_THRESHOLDS) as Array<[SemanticMode, number]>) {
    for (const { p, lookups } of all) {
      const s = RULES.map((r) => score(lookups, r, t));
      const gw = s[3] as Score;
      console.log(`| ${mode} | ${t}, ${HIT_MODEL.cuts[mode]} | ${p.name} | ${s.map(cell).join(" | ")} | ${gw.hits}, ${gw.correct} |`);
    }
  }
  if (all[0]?.lookups.learned) {
    const at = all.map(({ p, lookups }) => `${p.name} ${pct(precisionAtRecall(lookups, SEMANTIC_THRESHOLDS.balanced, RECALL_BEFORE).precision)}`);
    console.log(`\nBalanced (cosine >= ${SEMANTIC_THRESHOLDS.balanced}), gw decision with the cut swept: precision at recall ${pct(RECALL_BEFORE)}% (the holdout's balanced recall before issue 22): ${at.join(", ")}.`);
  }
  console.log("\nGPTCache's published default on protocol A's data (its own embedding and evaluation, threshold 0.9): 91.3 / 80.5.");
}

function sweep(p: Protocol, lookups: Lookups): void {
  console.log(`\n## Protocol ${p.name}: ${p.description}\n`);
  console.log(`Sweep of the threshold (gw decision at the cut of the threshold's mode; cosine + guard in brackets):\n`);
  console.log("| threshold | precision | recall | hits | [precision | recall] |");
  console.log("|---|---|---|---|---|");
  for (let t = 0.8; t < 0.995; t += 0.01) {
    const gw = score(lookups, "gw decision", t);
    const g = score(lookups, "cosine+guard", t);
    console.log(`| ${t.toFixed(2)} | ${pct(gw.precision)} | ${pct(gw.recall)} | ${gw.hits} | [${pct(g.precision)} | ${pct(g.recall)}] |`);
  }
  const answerable = lookups.looked.filter((l) => l.correct.size > 0).length;
  if (answerable < lookups.looked.length) {
    const b = score(lookups, "gw decision", SEMANTIC_THRESHOLDS.balanced);
    console.log(`\nBalanced recall over the ${answerable} queries that have a correct answer cached: ${pct(b.correct / answerable)}%`);
  }
  console.log(`\nPer query: index search ${lookups.searchMs.toFixed(3)} ms (k=5, ${lookups.cached.length} entries), guard + decision ${lookups.decideMs.toFixed(3)} ms`);
}

const pairs = await qqpPairs();
const a = await protocolA();
const texts = evaluationTexts(a, await protocolC(pairs));
const split = splitByGroups(pairs);
const protocols: Protocol[] = [a, await protocolC(split.dev, "C-dev", "QQP dev, dev part"), await protocolC(split.holdout, "C-holdout", "QQP dev, holdout")];
const embedders = Array.from({ length: workers }, () => createEmbedder(kind, { use: { timeoutMs: 120_000, maxQueue: 100_000 } }));
const started = performance.now();
const vectors = await embedAll(embedders, texts, !process.argv.includes("--no-cache"));
console.log(`# Semantic cache evaluation: embedder ${embedders[0]?.name}, ${texts.length} texts embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const guard = await mutantTable(embedders);
await Promise.all(embedders.map((e) => e.close()));
console.log(`\nSplit (split.ts, seed 22): the QQP dev split's ${pairs.length} pairs by question groups: dev part ${split.dev.length} pairs (${split.groups.dev} groups), holdout ${split.holdout.length} (${split.groups.holdout} groups); no question on both sides. The classifier (${HIT_MODEL.embedder}) was trained on the dev part only.`);
const learned = learnedFor(embedders[0]?.name ?? "");
if (!learned) console.log(`The classifier was trained with ${HIT_MODEL.embedder}: with this embedder gw decides as before, so the last two columns agree.`);
const all = protocols.map((p) => ({ p, lookups: lookUp(p, vectors, embedders[0]?.dimensions ?? 512, learned) }));
for (const { p } of all) console.log(`- ${p.name}: ${p.description}`);
table(all);
console.log(`\n## Guard set\n`);
for (const line of guard.lines) console.log(line);
if (process.argv.includes("--sweep")) for (const { p, lookups } of all) sweep(p, lookups);
