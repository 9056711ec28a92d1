// `bun bench/availability/run.ts [single|mix|sigterm ...]`: issue 14's "done when" figures
// (docs/availability.md "Figures"). gw runs from source against the scripted upstream, on
// 127.0.0.1 only; every phase is bounded and the run stops by itself.
//   single:  each hostile request alone, while GET /v1/models is probed back to back
//   mix:     10,000 seeded hostile requests (8 at a time), then RSS a minute later
//   sigterm: SIGTERM while a hostile request runs, against GW_SHUTDOWN_TIMEOUT_S
import { mkdirSync, writeFileSync } from "node:fs";
import { rssMiB } from "../lib/proc-stats.ts";
import { startGw, startUpstream, stop, stopAll, type Gw } from "../lib/processes.ts";
import { mixedCase, ordinaryCase, singleCases, type HostileCase } from "./cases.ts";
import { checkAnswer, probeModels, send, type Outcome } from "./client.ts";

const phases = process.argv.slice(2).length ? process.argv.slice(2) : ["single", "mix", "sigterm"];
const MIX_COUNT = Number(process.env.MIX_COUNT ?? 10_000);
const WARM_UP = 500;
/** CASES=regex runs only the single cases whose name matches. */
const only = process.env.CASES ? new RegExp(process.env.CASES) : null;
const report: string[] = [];
const data: Record<string, unknown> = {};

const p99 = (xs: number[]): number => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]! : NaN);
const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);

async function single(gw: Gw): Promise<void> {
  report.push("## One hostile request at a time", "", "| request | key | answer | took | /v1/models p99 | max | probes |", "|---|---|---|---|---|---|---|");
  const rows: unknown[] = [];
  for (const c of singleCases().filter((c) => !only || only.test(c.name))) {
    const probe = probeModels(gw);
    const outcome = await send(gw, c);
    const latencies = await probe.stop();
    const problem = checkAnswer(outcome);
    rows.push({ name: c.name, key: c.key, ...outcome, probeP99: p99(latencies), probeMax: Math.max(...latencies), probes: latencies.length, problem });
    report.push(`| ${c.name} | ${c.key} | ${outcome.status} ${outcome.code ?? ""}${problem ? ` **${problem}**` : ""} | ${fmt(outcome.ms)} | ${fmt(p99(latencies))} | ${fmt(Math.max(...latencies))} | ${latencies.length} |`);
    console.log(report.at(-1));
  }
  data.single = rows;
}

/** Ordinary traffic of the same shapes (endpoints, keys, streams), so "idle" is a process that has
 * served requests (JIT code, connection pools, caches at their working size), not a cold one. */
async function warmUp(gw: Gw): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = next++; i < WARM_UP; i = next++) await send(gw, ordinaryCase(i));
  }));
}

async function mix(gw: Gw): Promise<void> {
  const cold = rssMiB(gw.proc.pid);
  await warmUp(gw);
  // The idle collector runs 5-10 s after requests stop; idle is measured after it.
  await Bun.sleep(15_000);
  const idle = rssMiB(gw.proc.pid);
  console.log(`mix: RSS cold ${cold.toFixed(0)} MiB, idle after ${WARM_UP} ordinary requests ${idle.toFixed(0)} MiB`);
  const statuses = new Map<string, number>();
  const problems: string[] = [];
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gw.proc.pid))), 250);
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (let i = next++; i < MIX_COUNT; i = next++) {
      const c: HostileCase = mixedCase(i);
      const outcome: Outcome = await send(gw, c);
      const key = `${outcome.status} ${outcome.code ?? ""}`.trim();
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      const problem = checkAnswer(outcome);
      if (problem && problems.length < 50) problems.push(`#${i} ${c.name}: ${problem}`);
      else if (problem) problems.push("");
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const after = rssMiB(gw.proc.pid);
  console.log(`mix: ${MIX_COUNT} requests in ${seconds.toFixed(0)} s; RSS idle ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)}, at the end ${after.toFixed(0)}; waiting a minute`);
  await Bun.sleep(60_000);
  const minuteLater = rssMiB(gw.proc.pid);
  const counted = [...statuses.entries()].sort((a, b) => b[1] - a[1]);
  report.push("", `## ${MIX_COUNT.toLocaleString("en")} hostile requests (8 at a time, ${seconds.toFixed(0)} s)`, "",
    `Answers: ${counted.map(([k, n]) => `${k}: ${n}`).join(", ")}.`, "",
    `Problems (5xx other than the specified 503s, answers outside the envelope or without X-Gw-Api-Version, no answer): **${problems.length}**${problems.length ? `: ${problems.filter(Boolean).slice(0, 10).join("; ")}` : ""}.`, "",
    `RSS: ${cold.toFixed(0)} MiB cold; idle (after ${WARM_UP} ordinary requests) ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB, a minute after the last request **${minuteLater.toFixed(0)} MiB** (${((minuteLater / idle - 1) * 100).toFixed(0)}% over idle).`);
  data.mix = { count: MIX_COUNT, seconds, statuses: Object.fromEntries(counted), problems, rss: { cold, idle, peak, after, minuteLater } };
}

async function sigterm(upstreamUrl: string): Promise<void> {
  report.push("", "## SIGTERM while a hostile request runs (GW_SHUTDOWN_TIMEOUT_S=5)", "", "| in flight | answer | exit code | stopped after | limit |", "|---|---|---|---|---|");
  const rows: unknown[] = [];
  // An upstream that takes two minutes to answer: the request is still waiting when the grace ends.
  const slow = await startUpstream({ delayMs: 120_000, chunkDelayMs: 0, words: 18 });
  const kinds: Array<[string, string, HostileCase]> = [
    ["9 MiB letters, test key (CPU)", upstreamUrl, singleCases().find((c) => c.name === "9 MiB letters" && c.key === "test")!],
    ["9 MiB base64, live key (CPU)", upstreamUrl, singleCases().find((c) => c.name === "9 MiB base64" && c.key === "live")!],
    ["an upstream still thinking, live key", slow.url, { name: "slow", key: "live", path: "/chat/completions", body: () => JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "think" }] }) }],
    ["a stream from an upstream still thinking", slow.url, { name: "slow stream", key: "live", path: "/chat/completions", body: () => JSON.stringify({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "think" }] }) }],
  ];
  for (const [label, url, c] of kinds) {
    process.env.GW_SHUTDOWN_TIMEOUT_S = "5";
    const gw = await startGw(url);
    delete process.env.GW_SHUTDOWN_TIMEOUT_S;
    const pending = send(gw, c);
    await Bun.sleep(100);
    const t0 = performance.now();
    gw.proc.kill("SIGTERM");
    const killer = setTimeout(() => gw.proc.kill("SIGKILL"), 30_000);
    const code = await gw.proc.exited;
    clearTimeout(killer);
    const ms = performance.now() - t0;
    const outcome = await pending;
    rows.push({ label, code, ms, status: outcome.status, answer: outcome.code });
    report.push(`| ${label} | ${outcome.status || "connection closed"} ${outcome.code ?? ""} | ${code} | ${fmt(ms)} | 10 s (grace + 5 s) |`);
    console.log(report.at(-1));
  }
  data.sigterm = rows;
}

try {
  const upstream = await startUpstream({ delayMs: 0, chunkDelayMs: 0, words: 18 });
  if (phases.includes("single") || phases.includes("mix")) {
    const gw = await startGw(upstream.url);
    if (phases.includes("single")) await single(gw);
    if (phases.includes("mix")) await mix(gw);
    await stop(gw.proc);
  }
  if (phases.includes("sigterm")) await sigterm(upstream.url);
} finally {
  await stopAll();
}
const text = report.join("\n");
console.log(`\n${text}`);
mkdirSync("bench/results", { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
writeFileSync(`bench/results/availability-${stamp}.md`, text + "\n");
writeFileSync(`bench/results/availability-${stamp}.json`, JSON.stringify(data, null, 2));
process.exit(0);
