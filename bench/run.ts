// `make bench`: the benchmark suite. Starts the scripted upstream, gw (from source), the bare Bun
// proxy and Portkey as their own processes, runs the scenarios (each against its baselines in the
// same run, interleaved and repeated), prints one markdown report and writes it, with the figures
// as JSON, to bench/results/. Knobs: BENCH_ROUNDS, BENCH_SECONDS, BENCH_ONLY=throughput,micro,...
// (see docs/benchmarks.md). Every load run is bounded in time and targets 127.0.0.1 only.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { stopAll } from "./lib/processes.ts";
import { createStack, settings, type Scenario, type Section } from "./lib/stack.ts";
import { table } from "./lib/stats.ts";
import { ensureTools } from "./lib/wrk.ts";
import { cache } from "./scenarios/cache.ts";
import { fixedRate } from "./scenarios/fixed-rate.ts";
import { micro } from "./scenarios/micro.ts";
import { resources } from "./scenarios/resources.ts";
import { streaming } from "./scenarios/streaming.ts";
import { throughput } from "./scenarios/throughput.ts";

// Load scenarios first; micro runs last, after every server is stopped, on a quiet machine.
const SCENARIOS: Record<string, Scenario> = { throughput, "fixed-rate": fixedRate, streaming, cache, resources, micro };
const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const unknown = only.filter((s) => !(s in SCENARIOS));
if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown scenario(s) ${unknown.join(", ")}; known: ${Object.keys(SCENARIOS).join(", ")}`);
const selected = Object.keys(SCENARIOS).filter((s) => only.length === 0 || only.includes(s));

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = true;
    void stopAll().finally(() => process.exit(130));
  });
}

const started = Date.now();
const sections: Section[] = [];
try {
  const tools = [{ bin: "wrk", pkg: "wrk" }, ...(selected.includes("fixed-rate") ? [{ bin: "hey", pkg: "hey" }] : [])];
  if (selected.some((s) => s !== "micro")) ensureTools(tools);
  const stack = createStack();
  for (const name of selected) {
    if (interrupted) break;
    if (name === "micro") await stopAll();
    console.log(`bench: ${name}...`);
    const t0 = Date.now();
    try {
      sections.push(await SCENARIOS[name]!(stack));
    } catch (err) {
      console.error(`bench: ${name} failed:`, err);
      sections.push({ title: name, lines: [`**failed:** ${String(err instanceof Error ? err.message : err)}`], data: { error: String(err) }, problems: [`${name} failed: ${String(err)}`] });
    }
    console.log(`bench: ${name} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
} finally {
  await stopAll();
}

const wallSeconds = (Date.now() - started) / 1000;
const problems = sections.flatMap((s) => s.problems);
const headline = sections.flatMap((s) => s.headline ?? []);
const lines = [
  "# gw benchmark report",
  "",
  `${new Date().toISOString()} · ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}) · Bun ${Bun.version} · wall time ${wallSeconds.toFixed(0)} s`,
  `Settings: ${settings.rounds} rounds x ${settings.seconds} s, warm-up ${settings.warmupSeconds} s, ${settings.connections} connections, upstream delay ${settings.upstreamDelayMs} ms, stream chunk delay ${settings.chunkDelayMs} ms. Scenarios: ${selected.join(", ")}.`,
  "",
  ...(headline.length > 0 ? ["## Headline", "", ...table(["measure", "value"], headline), ""] : []),
  ...sections.flatMap((s) => [`## ${s.title}`, "", ...s.lines, ""]),
  ...(problems.length > 0 ? ["## Problems (figures above are not trustworthy)", "", ...problems.map((p) => `- ${p}`), ""] : []),
];
const report = lines.join("\n");
console.log("\n" + report);
mkdirSync("bench/results", { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
writeFileSync(`bench/results/${stamp}.md`, report);
writeFileSync(`bench/results/${stamp}.json`, JSON.stringify({ date: new Date().toISOString(), bun: Bun.version, cores: cpus().length, wallSeconds, settings, scenarios: selected, headline, sections }, null, 2));
console.log(`bench: wrote bench/results/${stamp}.md and .json (${wallSeconds.toFixed(0)} s)`);
if (problems.length > 0) process.exit(1);
