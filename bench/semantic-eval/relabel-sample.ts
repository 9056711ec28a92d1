// Blind relabelling of QQP's labels (issue 22 item 3): balanced mode's hits on C-holdout that QQP calls
// wrong, as many it calls right, and 100 + 100 random holdout pairs, under opaque ids for a labeller
// who sees only the two questions. Usage: bun run bench/semantic-eval/relabel-sample.ts [--out /tmp/relabel]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createEmbedder } from "../../src/cache/embedder/create-embedder.ts";
import { SEMANTIC_THRESHOLDS, decideSemanticHit } from "../../src/cache/semantic-decision.ts";
import { evaluationTexts, protocolA, protocolC, qqpPairs } from "./data.ts";
import { embedAll } from "./embed-all.ts";
import { lookUp } from "./evaluate.ts";
import { seeded, splitByGroups, type QqpPair } from "./split.ts";

export const RELABEL_SEED = 2211;
const RANDOM_PAIRS = 100;

/** Where a question sits in qqp_dev.json.gz: the first pair holding it, and on which side ("12a"). */
export type TextRef = string;
export type Group = "fp" | "tp" | "dup" | "nondup";
export interface KeyItem {
  id: string;
  group: Group;
  /** QQP's label for the pair (for hits: 1 when the answer counts as correct). */
  qqp: 0 | 1;
  /** For hits: the conservative mode hits the same pair too. */
  conservative: boolean;
  /** a: the stored question (hits) or text_a; b: the query or text_b. */
  a: TextRef;
  b: TextRef;
}
export interface Key {
  seed: number;
  queries: number;
  hits: { [mode in "balanced" | "conservative"]: { hits: number; correct: number } };
  items: KeyItem[];
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function refs(pairs: QqpPair[]): (text: string) => TextRef {
  const at = new Map<string, TextRef>();
  pairs.forEach((p, i) => {
    if (!at.has(p.text_a)) at.set(p.text_a, `${i}a`);
    if (!at.has(p.text_b)) at.set(p.text_b, `${i}b`);
  });
  return (text) => {
    const r = at.get(text);
    if (r === undefined) throw new Error("a text outside the QQP dev split");
    return r;
  };
}

if (import.meta.main) {
  const i = process.argv.indexOf("--out");
  const out = i >= 0 ? (process.argv[i + 1] ?? "/tmp/relabel") : "/tmp/relabel";
  const pairs = await qqpPairs();
  const refOf = refs(pairs);
  const embedder = createEmbedder("use", { use: { timeoutMs: 120_000, maxQueue: 100_000 } });
  const vectors = await embedAll([embedder], evaluationTexts(await protocolA(), await protocolC(pairs)));
  await embedder.close();
  const holdoutPairs = splitByGroups(pairs).holdout;
  const holdout = lookUp(await protocolC(holdoutPairs, "C-holdout"), vectors, embedder.dimensions);

  type Hit = { a: string; b: string; correct: boolean; conservative: boolean };
  const hitsOf = (mode: "balanced" | "conservative"): Hit[] =>
    holdout.looked.flatMap((l) => {
      const d = decideSemanticHit(l.query, l.candidates, SEMANTIC_THRESHOLDS[mode]);
      if (!d.hit) return [];
      const stored = l.candidates.find((c) => c.id === d.id)?.text ?? "";
      return [{ a: stored, b: l.query.text, correct: l.correct.has(stored), conservative: mode === "conservative" }];
    });
  const balanced = hitsOf("balanced");
  const conservative = hitsOf("conservative");
  const pairKey = (h: { a: string; b: string }): string => `${h.a}\u0000${h.b}`;
  const consSet = new Set(conservative.map(pairKey));
  const balSet = new Set(balanced.map(pairKey));
  const subset = conservative.every((h) => balSet.has(pairKey(h)));
  if (!subset) console.error("conservative's hits are not a subset of balanced's: its figures cannot come from this sample");

  const random = seeded(RELABEL_SEED);
  const fp = balanced.filter((h) => !h.correct);
  const tp = shuffled(balanced.filter((h) => h.correct), random).slice(0, fp.length);
  const dup = shuffled(holdoutPairs.filter((p) => p.label === 1), random).slice(0, RANDOM_PAIRS);
  const nondup = shuffled(holdoutPairs.filter((p) => p.label !== 1), random).slice(0, RANDOM_PAIRS);
  type Draft = Omit<KeyItem, "id"> & { textA: string; textB: string };
  const fromHit = (h: Hit, group: Group): Draft => ({ group, qqp: h.correct ? 1 : 0, conservative: consSet.has(pairKey(h)), a: refOf(h.a), b: refOf(h.b), textA: h.a, textB: h.b });
  const fromPair = (p: QqpPair, group: Group): Draft => ({ group, qqp: p.label === 1 ? 1 : 0, conservative: false, a: refOf(p.text_a), b: refOf(p.text_b), textA: p.text_a, textB: p.text_b });
  const drafts = shuffled([...fp.map((h) => fromHit(h, "fp")), ...tp.map((h) => fromHit(h, "tp")), ...dup.map((p) => fromPair(p, "dup")), ...nondup.map((p) => fromPair(p, "nondup"))], random);

  const items: KeyItem[] = [];
  const lines: string[] = [];
  drafts.forEach(({ textA, textB, ...d }, k) => {
    const id = `q${String(k + 1).padStart(3, "0")}`;
    items.push({ id, ...d });
    lines.push(JSON.stringify({ id, a: textA, b: textB }));
  });
  const count = (hits: Hit[]) => ({ hits: hits.length, correct: hits.filter((h) => h.correct).length });
  const key: Key = { seed: RELABEL_SEED, queries: holdout.looked.length, hits: { balanced: count(balanced), conservative: count(conservative) }, items };
  mkdirSync(out, { recursive: true });
  await Bun.write(join(out, "sample.jsonl"), `${lines.join("\n")}\n`);
  await Bun.write(join(out, "key.json"), JSON.stringify(key, null, 1));
  await Bun.write(join(out, "SAMPLE-READY"), "");
  console.log(`${items.length} items to ${out}/sample.jsonl (key in key.json; not shown here): ${fp.length} + ${tp.length} hits, ${dup.length} + ${nondup.length} random pairs; conservative hits ${subset ? "a subset of balanced's" : "NOT a subset"}`);
}
