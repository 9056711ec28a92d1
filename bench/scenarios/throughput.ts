// Non-streaming chat at saturation (wrk, closed loop), interleaved and repeated: direct, the bare
// Bun proxy (the floor), Portkey on Bun, and gw in the issue-19 shapes (a) to (d) and (f); median
// req/s, p50/p95/p99, CPU per request of each server process (gw: both threads) and its RSS.
import { cpuSeconds, mainThreadCpuSeconds, rssMiB } from "../lib/proc-stats.ts";
import { fmt, median, table } from "../lib/stats.ts";
import { settings, targets, type Scenario, type Stack } from "../lib/stack.ts";
import { runWrk, type Target, type WrkResult } from "../lib/wrk.ts";

interface Spec { id: string; name: string; target: (s: Stack) => Promise<Target>; pid: (s: Stack) => Promise<number> }
const gwPid = async (s: Stack) => (await s.gw()).proc.pid;
// Every side but (d) gets a unique prompt per request, so gw's cache (when on) never hits and the
// per-request cost of wrk's request() hook is the same on every side.
const vary = { vary: true };
const TARGETS: Spec[] = [
  { id: "direct", name: "direct (scripted upstream)", target: (s) => targets.direct(s, vary), pid: async (s) => (await s.upstream()).proc.pid },
  { id: "bare", name: "bare Bun proxy (floor)", target: (s) => targets.bare(s, vary), pid: async (s) => (await s.bare()).proc.pid },
  { id: "floor", name: "metering floor (bare + JSON in/out + a log record)", target: (s) => targets.floor(s, vary), pid: async (s) => (await s.floor()).proc.pid },
  { id: "durable", name: "durable floor (metering floor + gw's log row, trace and charge in its worker)", target: (s) => targets.durable(s, vary), pid: async (s) => (await s.durable()).proc.pid },
  { id: "portkey", name: "Portkey gateway (on Bun)", target: (s) => targets.portkey(s, vary), pid: async (s) => (await s.portkey()).proc.pid },
  { id: "gw", name: "gw (a) live key, default project", target: (s) => targets.gwLive(s, vary), pid: gwPid },
  { id: "gwLimited", name: "gw (b) rate limits, prepaid credit, budgets", target: (s) => targets.gwLimited(s, vary), pid: gwPid },
  { id: "gwCacheMiss", name: "gw (c) exact cache on, varied prompts (misses)", target: (s) => targets.gwLive(s, { vary: true, cache: true }), pid: gwPid },
  { id: "gwCacheHit", name: "gw (d) exact-cache hits", target: (s) => targets.gwLive(s, { cache: true }), pid: gwPid },
  { id: "gwTest", name: "gw (f) test mode (no upstream)", target: (s) => targets.gwTest(s, vary), pid: gwPid },
];

interface Run extends WrkResult { cpuUs: number; mainUs: number; rss: number }

export const throughput: Scenario = async (stack) => {
  const { rounds, seconds, connections, warmupSeconds } = settings;
  // A target that cannot start (say, Portkey not installed) is left out and reported, not fatal.
  const problems: string[] = [];
  const resolved: Array<Spec & { t: Target; p: number }> = [];
  for (const t of TARGETS) {
    try {
      resolved.push({ ...t, t: await t.target(stack), p: await t.pid(stack) });
    } catch (err) {
      problems.push(`throughput: ${t.name} did not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const runs = new Map<string, Run[]>(TARGETS.map((t) => [t.id, []]));
  // Warm-up: JIT, connection pools, SQLite statement caches.
  for (const r of resolved) await runWrk(r.t, { seconds: warmupSeconds, connections });
  for (let round = 1; round <= rounds; round++) {
    // Odd rounds in order, even rounds reversed: no side always follows the same one.
    for (const r of round % 2 ? resolved : [...resolved].reverse()) {
      const cpu0 = cpuSeconds(r.p);
      const main0 = mainThreadCpuSeconds(r.p);
      const w = await runWrk(r.t, { seconds, connections });
      const per = (s: number) => (s / Math.max(1, w.requests)) * 1e6;
      const run: Run = { ...w, cpuUs: per(cpuSeconds(r.p) - cpu0), mainUs: per(mainThreadCpuSeconds(r.p) - main0), rss: rssMiB(r.p) };
      runs.get(r.id)!.push(run);
      console.log(`  throughput round ${round} ${r.name}: ${w.rps.toFixed(0)} req/s p50 ${fmt(w.p50)} p99 ${fmt(w.p99)} ms, ${run.cpuUs.toFixed(0)} µs CPU/req, errors ${w.errors}`);
    }
  }
  const summary = Object.fromEntries(TARGETS.map((t) => {
    const rs = runs.get(t.id)!;
    const m = (f: (w: Run) => number) => median(rs.map(f));
    return [t.id, {
      name: t.name, rps: m((w) => w.rps), p50: m((w) => w.p50), p95: m((w) => w.p95), p99: m((w) => w.p99),
      cpuUs: m((w) => w.cpuUs), mainUs: m((w) => w.mainUs), rssMiB: Math.max(...rs.map((w) => w.rss)), errors: rs.reduce((a, w) => a + w.errors, 0), rounds: rs,
    }];
  }));
  const rps = (id: string) => summary[id]!.rps;
  const cpu = (id: string) => summary[id]!.cpuUs;
  // A ratio pairs the two sides' runs of one round (they ran minutes apart at most) and takes the
  // median over rounds, so a burst of outside load moves one round's ratio, not one side's median.
  const rr = (a: string, b: string, field: "rps" | "cpuUs" = "rps"): string => {
    const other = runs.get(b) ?? [];
    const per = (runs.get(a) ?? []).map((w, i) => w[field] / (other[i]?.[field] ?? NaN)).filter(Number.isFinite);
    return per.length > 0 ? `${median(per).toFixed(2)}x` : "n/a";
  };
  const lines = [
    `wrk -t1 -c${connections}, ${rounds} interleaved rounds x ${seconds} s after a ${warmupSeconds} s warm-up each; medians over rounds; ratios are medians of the per-round ratios. CPU per request is the server process's user + system time over the round (gw: request thread and log worker together; direct: the upstream's own); "main thread" is the part spent on the process's main thread (gw's request thread; the rest is the log worker, Bun's HTTP client and GC threads); RSS is the highest after a round.`,
    "",
    ...table(
      ["target", "req/s", "p50 ms", "p95 ms", "p99 ms", "CPU µs/req", "main thread µs/req", "RSS MiB", "vs bare", "errors"],
      TARGETS.map((t) => {
        const s = summary[t.id]!;
        return [s.name, fmt(s.rps, 0), fmt(s.p50), fmt(s.p95), fmt(s.p99), fmt(s.cpuUs, 0), fmt(s.mainUs, 0), fmt(s.rssMiB, 0), rr(t.id, "bare"), String(s.errors)];
      }),
    ),
    "",
    ...table(["ratio", "value", "issue 19 target"], [
      ["(a) gw live / bare proxy, req/s", rr("gw", "bare"), ">= 0.6x (aim 0.75x)"],
      ["(b) gw limits+credit+budgets / bare proxy, req/s", rr("gwLimited", "bare"), ">= 0.6x (aim 0.75x)"],
      ["(a) gw CPU per request / bare proxy's", rr("gw", "bare", "cpuUs"), "<= 2x"],
      ["(b) gw CPU per request / bare proxy's", rr("gwLimited", "bare", "cpuUs"), "<= 2x"],
      ["metering floor / bare proxy, req/s (the ceiling of any gateway that reads answers)", rr("floor", "bare"), ""],
      ["durable floor / bare proxy, req/s (the ceiling of any gateway that logs every request durably)", rr("durable", "bare"), ""],
      ["durable floor CPU per request / bare proxy's", rr("durable", "bare", "cpuUs"), ""],
      ["(a) gw live / metering floor, req/s", rr("gw", "floor"), ""],
      ["(a) gw live / durable floor, req/s", rr("gw", "durable"), ""],
      ["(a) gw live / Portkey, req/s", rr("gw", "portkey"), ""],
      ["(c) cache on, misses / (a), req/s", rr("gwCacheMiss", "gw"), ""],
      ["(d) exact hits / (c) misses, req/s", rr("gwCacheHit", "gwCacheMiss"), ">= 1.5x"],
      ["(f) test mode / bare proxy, req/s", rr("gwTest", "bare"), ""],
    ]),
    "",
    "All processes share the machine's cores with wrk, so a faster target also leaves less CPU to the others; compare ratios, not absolute figures across runs.",
  ];
  problems.push(...TARGETS.filter((t) => summary[t.id]!.errors > 0).map((t) => `throughput: ${t.name} had ${summary[t.id]!.errors} failed requests`));
  return {
    title: "Throughput: non-streaming chat at saturation",
    lines,
    data: summary,
    problems,
    headline: [
      ["bare Bun proxy req/s (the host's speed)", fmt(rps("bare"), 0)],
      ["(a) gw live req/s (full pipeline)", fmt(rps("gw"), 0)],
      ["(a) gw live / bare Bun proxy (req/s)", rr("gw", "bare")],
      ["(b) gw limits+credit+budgets / bare (req/s)", rr("gwLimited", "bare")],
      ["(a) / (b) gw CPU µs per request vs bare's", `${fmt(cpu("gw"), 0)} / ${fmt(cpu("gwLimited"), 0)} vs ${fmt(cpu("bare"), 0)}`],
      ["(a) / (b) of which gw's request thread (µs)", `${fmt(summary.gw!.mainUs, 0)} / ${fmt(summary.gwLimited!.mainUs, 0)}`],
      ["metering floor / bare Bun proxy (req/s)", rr("floor", "bare")],
      ["durable floor / bare Bun proxy (req/s); its CPU µs per request", `${rr("durable", "bare")}; ${fmt(cpu("durable"), 0)}`],
      ["(a) gw live / Portkey (req/s)", rr("gw", "portkey")],
      ["(d) exact hits / (c) misses (req/s)", rr("gwCacheHit", "gwCacheMiss")],
      ["(f) gw test mode req/s", fmt(rps("gwTest"), 0)],
      ["gw RSS MiB (highest after a round)", fmt(Math.max(...["gw", "gwLimited", "gwCacheMiss", "gwCacheHit", "gwTest"].map((id) => summary[id]!.rssMiB)), 0)],
    ],
  };
};
