// Scores the blind relabelling (relabel-sample.ts; issue 22 item 3): the labeller against QQP on random
// holdout pairs, and balanced / conservative precision on C-holdout with the labeller's labels for the hits.
// Usage: bun run bench/semantic-eval/relabel-score.ts [--from DIR] [--labeller WHO] (writes relabel-labels.json) | --repo
import type { Group, Key, KeyItem } from "./relabel-sample.ts";

export interface Labelled extends KeyItem {
  same: boolean;
}
export interface LabelsFile extends Omit<Key, "items"> {
  labeller: string;
  items: Labelled[];
}

const REPO_FILE = new URL("./relabel-labels.json", import.meta.url);
const Z = 1.96;

/** Wilson 95% interval of k successes in n. */
export function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (Z * Z) / n;
  const mid = (p + (Z * Z) / (2 * n)) / d;
  const half = (Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n))) / d;
  return [Math.max(0, mid - half), Math.min(1, mid + half)];
}

const pct = (x: number): string => (100 * x).toFixed(1);
const share = (items: Labelled[], same: boolean): { k: number; n: number; text: string } => {
  const k = items.filter((i) => i.same === same).length;
  const [lo, hi] = wilson(k, items.length);
  return { k, n: items.length, text: `${k}/${items.length} = ${pct(k / Math.max(1, items.length))}% [${pct(lo)}-${pct(hi)}]` };
};

/** Precision of a mode's hits with the labeller's labels: its QQP-wrong hits are all labelled (a
 * census), its QQP-right hits a uniform sample; the interval is the Wilson interval of the sample's
 * share carried through (the census adds no sampling error). */
function relabelled(file: LabelsFile, mode: "balanced" | "conservative"): string {
  const { hits, correct } = file.hits[mode];
  const inMode = (i: Labelled): boolean => mode === "balanced" || i.conservative;
  const fp = file.items.filter((i) => i.group === "fp" && inMode(i));
  const tp = file.items.filter((i) => i.group === "tp" && inMode(i));
  const wrong = hits - correct;
  if (fp.length !== wrong) return `${mode}: ${fp.length} of its ${wrong} QQP-wrong hits labelled, not a census; no figure`;
  const fpSame = fp.filter((i) => i.same).length;
  const tpSame = tp.filter((i) => i.same).length;
  const [lo, hi] = wilson(tpSame, tp.length);
  const at = (rate: number): number => (correct * rate + fpSame) / hits;
  const p = at(tpSame / Math.max(1, tp.length));
  return [
    `${mode} (QQP: ${pct(correct / hits)}% precision, ${correct}/${hits} hits, recall ${pct(correct / file.queries)}%):`,
    `  QQP-wrong hits the labeller calls duplicates: ${share(fp, true).text} (all ${wrong})`,
    `  QQP-right hits the labeller calls duplicates: ${share(tp, true).text} (sample of ${tp.length} of ${correct})`,
    `  precision with the labeller's labels: ${pct(p)}% [95%: ${pct(at(lo))}-${pct(at(hi))}], recall ${pct((p * hits) / file.queries)}% of ${file.queries} queries`,
  ].join("\n");
}

export function report(file: LabelsFile): string {
  const by = (g: Group): Labelled[] => file.items.filter((i) => i.group === g);
  const dup = by("dup");
  const nondup = by("nondup");
  const agree = dup.filter((i) => i.same).length + nondup.filter((i) => !i.same).length;
  const n = dup.length + nondup.length;
  // Cohen's kappa on the 100 + 100 random pairs (QQP's labels balanced by design, not the holdout's mix).
  const yes = (dup.filter((i) => i.same).length + nondup.filter((i) => i.same).length) / Math.max(1, n);
  const chance = (dup.length / Math.max(1, n)) * yes + (nondup.length / Math.max(1, n)) * (1 - yes);
  const kappa = (agree / Math.max(1, n) - chance) / (1 - chance);
  return [
    `labeller: ${file.labeller}; ${file.items.length} items labelled blind (seed ${file.seed})`,
    `random holdout pairs QQP labels duplicate, labeller agrees: ${share(dup, true).text}`,
    `random holdout pairs QQP labels not duplicate, labeller agrees: ${share(nondup, false).text}`,
    `agreement on the ${n} random pairs: ${pct(agree / Math.max(1, n))}%, Cohen's kappa ${kappa.toFixed(2)}`,
    relabelled(file, "balanced"),
    relabelled(file, "conservative"),
  ].join("\n");
}

async function fromLabeller(dir: string): Promise<LabelsFile> {
  const key = (await Bun.file(`${dir}/key.json`).json()) as Key;
  const labels = new Map<string, boolean>();
  for (const line of (await Bun.file(`${dir}/labels.jsonl`).text()).split("\n")) {
    if (line.trim() === "") continue;
    const row = JSON.parse(line) as { id?: unknown; same?: unknown };
    if (typeof row.id === "string" && typeof row.same === "boolean") labels.set(row.id, row.same);
  }
  const missing = key.items.filter((i) => !labels.has(i.id));
  if (missing.length > 0) console.error(`${missing.length} items without a label: ${missing.map((i) => i.id).join(" ")} (left out)`);
  const j = process.argv.indexOf("--labeller");
  const labeller = j >= 0 ? (process.argv[j + 1] ?? "blind labeller") : "blind labeller";
  const items = key.items.flatMap((i) => (labels.has(i.id) ? [{ ...i, same: labels.get(i.id) === true }] : []));
  return { seed: key.seed, queries: key.queries, hits: key.hits, labeller, items };
}

if (import.meta.main) {
  if (process.argv.includes("--repo")) {
    console.log(report((await Bun.file(REPO_FILE).json()) as LabelsFile));
  } else {
    const i = process.argv.indexOf("--from");
    const file = await fromLabeller(i >= 0 ? (process.argv[i + 1] ?? "/tmp/relabel") : "/tmp/relabel");
    await Bun.write(REPO_FILE, `{"seed":${file.seed},"queries":${file.queries},"hits":${JSON.stringify(file.hits)},"labeller":${JSON.stringify(file.labeller)},"items":[\n${file.items.map((x) => JSON.stringify(x)).join(",\n")}\n]}\n`);
    console.log(report(file));
  }
}
