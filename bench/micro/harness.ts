// Runs the mitata benchmarks a micro file registered: as mitata's own table when run by hand
// (`bun run bench/micro/sse.ts`), or with --json as one `MICRO [...]` line for scenarios/micro.ts.
import { run } from "mitata";

export interface MicroResult {
  name: string;
  /** nanoseconds per iteration */
  avg: number;
  p50: number;
  p99: number;
  error?: string;
}

export async function runMicro(): Promise<void> {
  if (!process.argv.includes("--json")) {
    await run();
    return;
  }
  const { benchmarks } = await run({ format: "quiet", throw: false });
  const results: MicroResult[] = [];
  for (const trial of benchmarks) {
    for (const r of trial.runs) {
      if (r.stats) results.push({ name: r.name, avg: r.stats.avg, p50: r.stats.p50, p99: r.stats.p99 });
      else results.push({ name: r.name, avg: NaN, p50: NaN, p99: NaN, error: String((r.error as { message?: string })?.message ?? r.error) });
    }
  }
  console.log(`MICRO ${JSON.stringify(results)}`);
}
