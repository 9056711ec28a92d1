// Micro-benchmarks (mitata), each file in its own process with nothing else loading the machine:
// the SSE decoder and encoder, token counting, analyze + route, a whole request in-process, and a
// 200-chunk stream read directly, passed through (OpenAI) and translated (Anthropic, Gemini). A file
// that fails (for example after a change in src/) is reported as such; the others still run.
import { track } from "../lib/processes.ts";
import { fmt, table } from "../lib/stats.ts";
import type { Scenario } from "../lib/stack.ts";
import type { MicroResult } from "../micro/harness.ts";

const FILES = [
  { file: "bench/micro/sse.ts", what: "SSE decoder / encoder" },
  { file: "bench/micro/tokens.ts", what: "token counting" },
  { file: "bench/micro/analyze.ts", what: "analyzer: word scan, whole analysis" },
  { file: "bench/micro/route.ts", what: "analyze + route" },
  { file: "bench/micro/request-path.ts", what: "whole request, in-process" },
  { file: "bench/micro/record.ts", what: "record stage: log row and trace encoding" },
  { file: "bench/micro/stream-translate.ts", what: "stream per format (200 chunks)" },
  { file: "bench/micro/guard.ts", what: "PII and secrets guard" },
  { file: "bench/micro/rate-limit.ts", what: "rate limit admit + settle" },
  { file: "bench/micro/billing.ts", what: "billing reserve + settle" },
];

const time = (ns: number): string =>
  !Number.isFinite(ns) ? "n/a" : ns >= 1e6 ? `${fmt(ns / 1e6)} ms` : ns >= 1e3 ? `${fmt(ns / 1e3)} µs` : `${fmt(ns, 0)} ns`;

export const micro: Scenario = async () => {
  const rows: string[][] = [];
  const data: Record<string, MicroResult[] | { error: string }> = {};
  const problems: string[] = [];
  for (const { file, what } of FILES) {
    const proc = track(Bun.spawn(["bun", "run", file, "--json"], { stdout: "pipe", stderr: "pipe", timeout: 180_000 }));
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    const line = out.split("\n").find((l) => l.startsWith("MICRO "));
    if (proc.exitCode !== 0 || !line) {
      const error = `${file} failed (exit ${proc.exitCode}): ${(err || out).trim().split("\n").slice(-3).join(" | ")}`;
      data[file] = { error };
      problems.push(`micro: ${error}`);
      rows.push([what, "**failed**", "", "", ""]);
      continue;
    }
    const results = JSON.parse(line.slice(6)) as MicroResult[];
    data[file] = results;
    for (const r of results) rows.push([what, r.name, time(r.avg), time(r.p50), time(r.p99)]);
    console.log(`  micro ${file}: ${results.length} benchmarks`);
  }
  return {
    title: "Micro-benchmarks (mitata)",
    lines: [
      "Per iteration; run one at a time with `bun run bench/micro/<file>.ts` for mitata's full output.",
      "",
      ...table(["area", "benchmark", "avg", "p50", "p99"], rows, 2),
    ],
    data,
    problems,
  };
};
