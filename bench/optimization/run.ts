// The token engine's evaluation (docs/optimization.md "Evaluation"): `bun bench/optimization/run.ts
// [--repeats N] [--iterations N] [--losses] [--json FILE] [--overhead]` or `--show ID [MODE] [--window N]`. Per mode and
// type: reduction, gold facts kept, entity recall, JSON and code checks, engine time; then the overhead figures (alone with --overhead).
import { writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import type { OptimizationMode } from "../../src/optimization/types.ts";
import { loadCorpus, type OptCase } from "../../test/fixtures/optimization/corpus.ts";
import { fmt, table } from "../lib/stats.ts";
import { DEFAULT_WINDOW, evaluateCase, optimizeCase, type CaseResult } from "./evaluate.ts";
import { checkCase } from "./measure.ts";
import { composite, countFloor, timeEngine, type Floor, type Overhead } from "./overhead.ts";
import { figuresByType, lossLines, stageTable, typeTable } from "./report.ts";

/** The runs reported: each mode on gpt-4o's window, and aggressive once more on a small model's
 * window (8k), where history_window has turns to drop. */
export const RUNS: { label: string; mode: OptimizationMode; window: number }[] = [
  { label: "safe", mode: "safe", window: 128_000 },
  { label: "balanced", mode: "balanced", window: 128_000 },
  { label: "aggressive", mode: "aggressive", window: 128_000 },
  { label: "aggressive, 8k window", mode: "aggressive", window: 8_000 },
];

export function evaluateCorpus(cases: readonly OptCase[], mode: OptimizationMode, repeats: number, window: number): CaseResult[] {
  return cases.map((c) => evaluateCase(c, mode, repeats, window));
}

/** The overhead requests, from the corpus: ~20k tokens of agent turns, a 600-900-token paste, a small chat. */
export function overheadFigures(cases: readonly OptCase[], iterations: number): Overhead[] {
  const byId = (id: string): OptCase => {
    const c = cases.find((x) => x.id === id);
    if (!c) throw new Error(`no case ${id}`);
    return c;
  };
  const big = composite(["agent-01", "tools-02", "tools-05", "agent-08"].map(byId), 20_000, "composite-20k");
  const out: Overhead[] = [];
  for (const mode of ["off", "safe", "balanced", "aggressive"] as const) out.push(timeEngine("20k-token agent request", big, mode, iterations));
  out.push(timeEngine("20k-token agent request", big, "safe", iterations, false));
  for (const mode of ["off", "safe", "balanced"] as const) {
    out.push(timeEngine("kubectl paste (mixed-02)", byId("mixed-02"), mode, iterations * 4));
    out.push(timeEngine("lease + JSON (ml-de-01)", byId("ml-de-01"), mode, iterations * 4));
    out.push(timeEngine("small chat (mixed-05)", byId("mixed-05"), mode, iterations * 4));
  }
  out.push(timeEngine("lease + JSON (ml-de-01)", byId("ml-de-01"), "safe", iterations * 4, false));
  return out;
}

/** The exact count alone, ours and the library's, and the request thread's share of a worker run. */
export function floorFigures(cases: readonly OptCase[], iterations: number): Floor[] {
  const byId = (id: string): OptCase => cases.find((x) => x.id === id) ?? cases[0]!;
  const big = composite(["agent-01", "tools-02", "tools-05", "agent-08"].map(byId), 20_000, "composite-20k");
  return [countFloor("20k-token agent request", big, iterations), countFloor("lease + JSON (ml-de-01)", byId("ml-de-01"), iterations * 4)];
}

function floorTable(rows: Floor[]): string[] {
  return ["### The floor: one exact count of the request, and a worker run's cost to the request thread (ms)", "", ...table(
    ["request", "tokens", "our counter p50", "p95", "gpt-tokenizer countTokens p50", "p95", "clone in + out p50", "p95"],
    rows.map((f) => [f.label, String(f.tokens), fmt(f.ours.p50, 3), fmt(f.ours.p95, 3), fmt(f.library.p50, 3), fmt(f.library.p95, 3), fmt(f.clones.p50, 3), fmt(f.clones.p95, 3)]), 2), ""];
}

function overheadTable(rows: Overhead[]): string[] {
  const split = rows.filter((o) => o.label.startsWith("20k") && o.mode !== "off");
  const parts = [...new Set(split.flatMap((o) => Object.keys(o.split)))];
  return ["### Engine time per request (the optimize stage's work: options, context, optimizeRequest; ms)", "", ...table(
    ["request", "tokens", "mode", "p50", "p95", "p99", "calls"],
    rows.map((o) => [o.label, String(o.tokens), o.mode, fmt(o.p50, 3), fmt(o.p95, 3), fmt(o.p99, 3), String(o.iterations)]), 3), "",
    "### Where the 20k-token request's time goes (medians, ms)", "", ...table(
      ["request", "mode", ...parts], split.map((o) => [o.label, o.mode, ...parts.map((k) => fmt(o.split[k], 3))]), 2), ""];
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const num = (flag: string, dflt: number): number => {
    const at = args.indexOf(flag);
    return at >= 0 ? Number(args[at + 1] ?? dflt) : dflt;
  };
  const jsonAt = args.indexOf("--json");
  const cases = loadCorpus();
  const showAt = args.indexOf("--show");
  if (showAt >= 0) {
    // One case through one mode: its trace, checks and the request as the provider would get it.
    const c = cases.find((x) => x.id === args[showAt + 1]);
    if (!c) throw new Error(`no case ${args[showAt + 1]}; ids: ${cases.map((x) => x.id).join(" ")}`);
    const mode = (args[showAt + 2] ?? "safe") as OptimizationMode;
    const { request, trace } = optimizeCase(structuredClone(c), mode, num("--window", DEFAULT_WINDOW));
    console.log(JSON.stringify({ trace, checks: checkCase(c.request, request, c.gold), request }, null, 2));
    process.exit(0);
  }
  // Times are the request thread's alone, but other processes on the machine stretch them.
  const load = `load average ${loadavg().map((x) => x.toFixed(1)).join(" ")} on ${availableParallelism()} cores`;
  const lines: string[] = [`## Token engine on the optimisation corpus (${cases.length} cases; ${load})`, ""];
  const all: Record<string, unknown> = {};
  const losses: string[] = [];
  for (const run of args.includes("--overhead") ? [] : RUNS) {
    const rs = evaluateCorpus(cases, run.mode, num("--repeats", 5), run.window);
    const byType = figuresByType(rs);
    lines.push(...typeTable(run.label, byType), ...stageTable(run.label, rs));
    losses.push(...lossLines(run.label, rs));
    all[run.label] = { figures: byType, cases: rs.map(({ ms: _ms, ...r }) => r) };
  }
  if (args.includes("--losses")) lines.push("### Cases that lost something", "", ...(losses.length ? losses : ["none"]), "");
  const overhead = overheadFigures(cases, num("--iterations", 200));
  lines.push(...overheadTable(overhead));
  const floor = floorFigures(cases, num("--iterations", 200) / 2);
  lines.push(...floorTable(floor));
  all["overhead"] = overhead;
  all["floor"] = floor;
  console.log(lines.join("\n"));
  if (jsonAt >= 0 && args[jsonAt + 1]) writeFileSync(args[jsonAt + 1] as string, JSON.stringify(all, null, 2));
}
