// Fixed-rate load with hey (-q QPS per worker x -c workers), bounded by -z; exact percentiles and
// the achieved rate come from its per-request CSV (hey's times have 0.1 ms resolution).
import { writeFileSync } from "node:fs";
import { scratchFile, track } from "./processes.ts";
import { percentiles } from "./stats.ts";
import type { Target } from "./wrk.ts";

export interface HeyResult {
  target: number;
  achieved: number;
  requests: number;
  errors: number;
  /** milliseconds */
  p50: number;
  p95: number;
  p99: number;
}

/** Workers so that each one's interval (1/q) stays well above the latency being measured. */
/** hey paces each worker on its own timer and the timers fire together, so N workers arrive as
 * bursts of N requests. Few fast workers (500/s each, one request every 2 ms) give the smoothest
 * arrival hey can make; many slow workers measured hey's bursts instead of the target (with 50
 * workers at 1000/s even a bare proxy hop showed 2 ms at p50). A worker waits for its answer, so
 * a target slower than 2 ms shows up as a rate not reached. */
export function workersFor(rps: number): { workers: number; qps: number } {
  const workers = Math.max(2, Math.ceil(rps / 500));
  return { workers, qps: rps / workers };
}

export async function runHey(t: Target, rps: number, seconds: number): Promise<HeyResult> {
  const bodyFile = scratchFile(`hey-${Bun.hash(t.body).toString(16)}.json`);
  writeFileSync(bodyFile, t.body);
  const { workers, qps } = workersFor(rps);
  const args = ["hey", "-z", `${seconds}s`, "-c", String(workers), "-q", String(qps), "-m", "POST", "-D", bodyFile, "-o", "csv", "-disable-compression", "-t", "10"];
  for (const [k, v] of Object.entries(t.headers)) args.push("-H", `${k}: ${v}`);
  args.push(t.url);
  const proc = track(Bun.spawn(args, { stdout: "pipe", stderr: "inherit", timeout: (seconds + 30) * 1000 }));
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  const latencies: number[] = [];
  let errors = 0;
  let last = 0;
  for (const line of text.split("\n")) {
    // response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset
    const cols = line.split(",");
    if (cols.length < 8 || cols[0] === "response-time") continue;
    const status = Number(cols[6]);
    if (status < 200 || status >= 300) errors++;
    else latencies.push(Number(cols[0]) * 1000);
    last = Math.max(last, Number(cols[7]) + Number(cols[0]));
  }
  if (latencies.length === 0 && errors === 0) throw new Error(`hey produced no results (exit ${proc.exitCode})`);
  const requests = latencies.length + errors;
  return { target: rps, achieved: requests / Math.max(seconds, last), requests, errors, ...percentiles(latencies) };
}
