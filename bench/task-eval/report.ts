// Accuracy of a task detector on labelled corpus entries: overall, per kind, English against the
// rest and per language, per shape, and the confusions. Shared by bench/task-eval/run.ts and the
// training script (scripts/train-task-classifier.ts) so both print the same tables.
import { readFileSync } from "node:fs";
import { KINDS, type TaskKind } from "../../src/analysis/kinds.ts";
import type { CorpusEntry } from "../../test/helpers/task-corpus.ts";

export interface Row { e: CorpusEntry; got: TaskKind }

export interface Figures {
  n: number;
  overall: number;
  english: number;
  nonEnglish: number;
  perKind: Array<[string, number, number]>;
  perLanguage: Array<[string, number, number]>;
  perShape: Array<[string, number, number]>;
}

const share = (rows: readonly Row[]): number => (rows.length === 0 ? NaN : rows.filter((r) => r.got === r.e.task).length / rows.length);

function by(rows: readonly Row[], key: (r: Row) => string): Array<[string, number, number]> {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return [...groups].map(([k, g]) => [k, share(g), g.length] as [string, number, number]).sort((a, b) => b[2] - a[2] || a[0].localeCompare(b[0]));
}

export function figures(rows: readonly Row[]): Figures {
  const perKind = by(rows, (r) => r.e.task).sort((a, b) => KINDS.indexOf(a[0] as TaskKind) - KINDS.indexOf(b[0] as TaskKind));
  return {
    n: rows.length,
    overall: share(rows),
    english: share(rows.filter((r) => r.e.language === "en")),
    nonEnglish: share(rows.filter((r) => r.e.language !== "en")),
    perKind,
    perLanguage: by(rows, (r) => r.e.language),
    perShape: by(rows, (r) => r.e.shape ?? "plain"),
  };
}

const pct = (v: number): string => (Number.isNaN(v) ? "  -  " : `${(v * 100).toFixed(1)}%`);
const cells = (list: Array<[string, number, number]>): string => list.map(([k, v, n]) => `${k} ${pct(v)} (${n})`).join(", ");

/** The tables as text; with `misses`, up to that many misclassified prompts. */
export function formatFigures(title: string, rows: readonly Row[], misses = 0): string {
  const f = figures(rows);
  const lines = [
    `${title}: ${f.n} entries, overall ${pct(f.overall)}, English ${pct(f.english)}, non-English ${pct(f.nonEnglish)}`,
    `  per kind: ${cells(f.perKind)}`,
    `  per language: ${cells(f.perLanguage)}`,
    `  per shape: ${cells(f.perShape)}`,
  ];
  const confusions = new Map<string, number>();
  for (const r of rows) if (r.got !== r.e.task) confusions.set(`${r.e.task} -> ${r.got}`, (confusions.get(`${r.e.task} -> ${r.got}`) ?? 0) + 1);
  lines.push(`  confusions: ${[...confusions].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ")}`);
  for (const r of rows.filter((x) => x.got !== x.e.task).slice(0, misses)) {
    const text = r.e.prompt ?? r.e.messages?.at(-1)?.content ?? "";
    lines.push(`    ${r.e.id} ${r.e.language} ${r.e.task} -> ${r.got}: ${text.slice(0, 90).replaceAll("\n", " ")}`);
  }
  return lines.join("\n");
}

interface EvalCase { prompt: string; task: TaskKind; language: string; tools?: boolean; image?: boolean }

/** test/fixtures/analyzer-eval.json as corpus entries (task labels only). */
export function evalSetEntries(): CorpusEntry[] {
  const cases = JSON.parse(readFileSync(new URL("../../test/fixtures/analyzer-eval.json", import.meta.url), "utf8")) as EvalCase[];
  return cases.map((c, i) => ({
    id: `eval-${i}`, prompt: c.prompt, task: c.task, language: c.language, complexity: "medium", shape: "plain",
    tools: c.tools, image: c.image, file: "analyzer-eval.json",
  }));
}

