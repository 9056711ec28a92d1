// Non-streaming chat at saturation (wrk, closed loop): direct, the bare Bun proxy (the floor), gw
// with a live key (the full pipeline), Portkey on Bun, and gw test mode (the ceiling of gw's own
// work), interleaved A B C D E and repeated; medians of RPS and p50/p95/p99, and the ratios.
import { fmt, median, ratio, table } from "../lib/stats.ts";
import { settings, targets, type Scenario, type Stack } from "../lib/stack.ts";
import { runWrk, type Target, type WrkResult } from "../lib/wrk.ts";

const TARGETS: Array<{ id: string; name: string; target: (s: Stack) => Promise<Target> }> = [
  { id: "direct", name: "direct (scripted upstream)", target: (s) => targets.direct(s) },
  { id: "bare", name: "bare Bun proxy (floor)", target: targets.bare },
  { id: "gw", name: "gw live key -> upstream", target: (s) => targets.gwLive(s) },
  { id: "portkey", name: "Portkey gateway (on Bun)", target: targets.portkey },
  { id: "gwTest", name: "gw test mode (no upstream)", target: targets.gwTest },
];

export const throughput: Scenario = async (stack) => {
  const { rounds, seconds, connections, warmupSeconds } = settings;
  // A target that cannot start (say, Portkey not installed) is left out and reported, not fatal.
  const problems: string[] = [];
  const resolved: Array<(typeof TARGETS)[number] & { t: Target }> = [];
  for (const t of TARGETS) {
    try {
      resolved.push({ ...t, t: await t.target(stack) });
    } catch (err) {
      problems.push(`throughput: ${t.name} did not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const runs = new Map<string, WrkResult[]>(TARGETS.map((t) => [t.id, []]));
  // Warm-up: JIT, connection pools, SQLite statement caches.
  for (const r of resolved) await runWrk(r.t, { seconds: warmupSeconds, connections });
  for (let round = 1; round <= rounds; round++) {
    for (const r of resolved) {
      const w = await runWrk(r.t, { seconds, connections });
      runs.get(r.id)!.push(w);
      console.log(`  throughput round ${round} ${r.name}: ${w.rps.toFixed(0)} req/s p50 ${fmt(w.p50)} p99 ${fmt(w.p99)} ms errors ${w.errors}`);
    }
  }
  const summary = Object.fromEntries(TARGETS.map((t) => {
    const rs = runs.get(t.id)!;
    const m = (f: (w: WrkResult) => number) => median(rs.map(f));
    return [t.id, { name: t.name, rps: m((w) => w.rps), p50: m((w) => w.p50), p95: m((w) => w.p95), p99: m((w) => w.p99), errors: rs.reduce((a, w) => a + w.errors, 0), rounds: rs }];
  }));
  const rps = (id: string) => summary[id]!.rps;
  const lines = [
    `wrk -t1 -c${connections}, ${rounds} interleaved rounds x ${seconds} s after a ${warmupSeconds} s warm-up each; medians over rounds.`,
    "",
    ...table(
      ["target", "req/s", "p50 ms", "p95 ms", "p99 ms", "vs direct", "errors"],
      TARGETS.map((t) => {
        const s = summary[t.id]!;
        return [s.name, fmt(s.rps, 0), fmt(s.p50), fmt(s.p95), fmt(s.p99), ratio(s.rps, rps("direct")), String(s.errors)];
      }),
    ),
    "",
    ...table(["ratio (req/s)", "value"], [
      ["gw live / bare Bun proxy", ratio(rps("gw"), rps("bare"))],
      ["gw live / Portkey", ratio(rps("gw"), rps("portkey"))],
      ["gw live / direct", ratio(rps("gw"), rps("direct"))],
      ["gw test mode / bare Bun proxy", ratio(rps("gwTest"), rps("bare"))],
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
      ["gw live req/s (full pipeline)", fmt(rps("gw"), 0)],
      ["gw live / bare Bun proxy (req/s)", ratio(rps("gw"), rps("bare"))],
      ["gw live / Portkey (req/s)", ratio(rps("gw"), rps("portkey"))],
      ["gw test mode req/s", fmt(rps("gwTest"), 0)],
    ],
  };
};
