// The semantic cache evaluation (issue 7 item 4): protocols A (GPTCache's mock data) and C (QQP dev)
// through the real embedder, index, guard and decision; precision and recall per mode, with and
// without the guard, and a threshold sweep.
// Usage: bun run bench/semantic-eval/run.ts [--embedder use|ngram] [--protocol A,C] [--workers 2] [--no-cache]
import { createEmbedder, type EmbedderKind } from "../../src/cache/embedder/create-embedder.ts";
import { SEMANTIC_THRESHOLDS } from "../../src/cache/semantic-decision.ts";
import { protocolA, protocolC, type Protocol } from "./data.ts";
import { embedAll } from "./embed-all.ts";
import { RULES, lookUp, score, type Lookups, type Score } from "./evaluate.ts";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const kind = arg("embedder", "use") as EmbedderKind;
if (kind !== "use" && kind !== "ngram") throw new Error("--embedder is use or ngram");
const wanted = arg("protocol", "A,C").split(",");
const workers = kind === "use" ? Number(arg("workers", "2")) : 1;

const pct = (x: number): string => (100 * x).toFixed(1);
const cell = (s: Score): string => `${pct(s.precision)} / ${pct(s.recall)}`;

function report(p: Protocol, lookups: Lookups): void {
  console.log(`\n## Protocol ${p.name}: ${p.description}\n`);
  console.log("Precision / recall (%); recall = correct hits / all queries.\n");
  console.log(`| mode | threshold | ${RULES.join(" | ")} | gw decision: hits, correct |`);
  console.log(`|---|---|${RULES.map(() => "---|").join("")}---|`);
  for (const [mode, t] of Object.entries(SEMANTIC_THRESHOLDS)) {
    const s = RULES.map((r) => score(lookups, r, t));
    const gw = s[2] as Score;
    console.log(`| ${mode} | ${t} | ${s.map(cell).join(" | ")} | ${gw.hits}, ${gw.correct} |`);
  }
  console.log(`\nSweep (gw decision; cosine + guard in brackets):\n`);
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

const protocols: Protocol[] = [];
if (wanted.includes("A")) protocols.push(await protocolA());
if (wanted.includes("C")) protocols.push(await protocolC());
const texts = [...new Set(protocols.flatMap((p) => [...p.cached, ...p.queries.map((q) => q.text)]))];
const embedders = Array.from({ length: workers }, () => createEmbedder(kind, { use: { timeoutMs: 120_000, maxQueue: 100_000 } }));
const started = performance.now();
const vectors = await embedAll(embedders, texts, !process.argv.includes("--no-cache"));
console.log(`# Semantic cache evaluation: embedder ${embedders[0]?.name}, ${texts.length} texts embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
await Promise.all(embedders.map((e) => e.close()));
for (const p of protocols) report(p, lookUp(p, vectors, embedders[0]?.dimensions ?? 512));
