// `bun bench/threads.ts`: gw's CPU per request split by thread (request thread, log worker, Bun's
// HTTP and GC helper threads) under the throughput load of scenario (a), read from /proc.
import { readdirSync, readFileSync } from "node:fs";
import { limitedProjectKey, startGw, startUpstream, stopAll } from "./lib/processes.ts";
import { chatBody, settings } from "./lib/stack.ts";
import { envNumber } from "./lib/stats.ts";
import { ensureTools, runWrk } from "./lib/wrk.ts";

const CLK_TCK = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
const seconds = envNumber("THREADS_SECONDS", 10);
const cache = process.env.THREADS_CACHE === "1";
/** THREADS_LIMITED=1: scenario (b), a project with rate limits, prepaid credit and budgets. */
const limited = process.env.THREADS_LIMITED === "1";

function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue;
    }
    const name = tid === String(pid) ? "request thread" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(`${name}#${tid}`, (Number(f[11]) + Number(f[12])) / CLK_TCK);
  }
  return out;
}

ensureTools([{ bin: "wrk", pkg: "wrk" }]);
try {
  const upstream = await startUpstream({ delayMs: 0, chunkDelayMs: 0, words: 18 });
  const gw = await startGw(upstream.url);
  let key = gw.liveKey;
  if (limited) key = await limitedProjectKey(gw, "threads-limits");
  const headers: Record<string, string> = { "content-type": "application/json", authorization: `Bearer ${key}` };
  if (!cache) headers["x-gw-cache"] = "off";
  const target = { url: `${gw.url}/chat/completions`, body: chatBody("openai/gpt-4o-mini", false, true), headers };
  await runWrk(target, { seconds: settings.warmupSeconds, connections: settings.connections });
  const before = threads(gw.proc.pid);
  const w = await runWrk(target, { seconds, connections: settings.connections });
  const after = threads(gw.proc.pid);
  const byName = new Map<string, number>();
  let total = 0;
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    total += d;
    const name = k.split("#")[0]!;
    byName.set(name, (byName.get(name) ?? 0) + d);
  }
  console.log(`${w.rps.toFixed(0)} req/s, cache ${cache ? "on" : "off"}${limited ? ", scenario (b)" : ""}; CPU µs per request: total ${((total / w.requests) * 1e6).toFixed(0)}`);
  for (const [name, s] of [...byName].sort((a, b) => b[1] - a[1])) if (s > 0) console.log(`  ${name}: ${((s / w.requests) * 1e6).toFixed(0)}`);
} finally {
  await stopAll();
}
process.exit(0);
