// Non-streaming chat at fixed request rates (hey): direct, the bare Bun proxy and gw live,
// interleaved and repeated. Overhead = gw latency - direct latency at the same rate, at p50 and p99;
// gw - bare proxy separates gw's own work from the cost of any extra hop. A rate that a side does
// not sustain (achieved < 90% of target) is marked not reachable.
import { runHey, workersFor, type HeyResult } from "../lib/hey.ts";
import { fmt, median, table } from "../lib/stats.ts";
import { settings, targets, type Scenario } from "../lib/stack.ts";

const RATES = (process.env.BENCH_RATES ?? "1000,5000").split(",").map(Number).filter((n) => n > 0);
const SIDES = ["direct", "bare", "gw"] as const;
type Side = (typeof SIDES)[number];

interface SideSummary {
  achieved: number;
  p50: number;
  p99: number;
}

export const fixedRate: Scenario = async (stack) => {
  const { rounds, seconds, warmupSeconds } = settings;
  const t = { direct: await targets.direct(stack), bare: await targets.bare(stack), gw: await targets.gwLive(stack) };
  const runs = new Map<string, HeyResult[]>();
  const key = (rate: number, side: Side) => `${rate}/${side}`;
  for (const side of SIDES) await runHey(t[side], RATES[0] ?? 1000, warmupSeconds);
  for (let round = 1; round <= rounds; round++) {
    for (const rate of RATES) {
      for (const side of SIDES) {
        const r = await runHey(t[side], rate, seconds);
        runs.set(key(rate, side), [...(runs.get(key(rate, side)) ?? []), r]);
        console.log(`  fixed-rate round ${round} ${rate}/s ${side}: achieved ${r.achieved.toFixed(0)}/s p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} ms errors ${r.errors}`);
      }
    }
  }
  const summary = (rate: number, side: Side): SideSummary => {
    const rs = runs.get(key(rate, side)) ?? [];
    return { achieved: median(rs.map((r) => r.achieved)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)) };
  };
  const rows = RATES.map((rate) => {
    const [direct, bare, gw] = SIDES.map((s) => summary(rate, s)) as [SideSummary, SideSummary, SideSummary];
    const errors = SIDES.flatMap((s) => runs.get(key(rate, s)) ?? []).reduce((a, r) => a + r.errors, 0);
    const reachable = [direct, bare, gw].every((s) => s.achieved >= 0.9 * rate);
    return {
      rate, direct, bare, gw, reachable, errors,
      overheadP50: gw.p50 - direct.p50, overheadP99: gw.p99 - direct.p99, overBareP50: gw.p50 - bare.p50, overBareP99: gw.p99 - bare.p99,
    };
  });
  const pair = (s: SideSummary) => `${fmt(s.p50, 1)} / ${fmt(s.p99, 1)}`;
  const lines = [
    `hey, ${rounds} interleaved rounds x ${seconds} s per rate and side; workers x QPS per worker: ${RATES.map((r) => `${r}/s = ${workersFor(r).workers} x ${fmt(workersFor(r).qps, 1)}`).join(", ")}. hey reports times to 0.1 ms.`,
    "",
    ...table(
      ["target rate", "reachable", "achieved/s direct, bare, gw", "direct p50 / p99 ms", "bare proxy p50 / p99 ms", "gw p50 / p99 ms", "**overhead gw - direct p50 / p99 ms**", "gw - bare proxy p50 / p99 ms", "errors"],
      rows.map((r) => [
        `${r.rate}/s`, r.reachable ? "yes" : "**not reachable**", [r.direct, r.bare, r.gw].map((s) => fmt(s.achieved, 0)).join(", "),
        pair(r.direct), pair(r.bare), pair(r.gw), `**${fmt(r.overheadP50, 1)} / ${fmt(r.overheadP99, 1)}**`, `${fmt(r.overBareP50, 1)} / ${fmt(r.overBareP99, 1)}`, String(r.errors),
      ]),
      2,
    ),
    "",
    "Overheads are differences of the medians (over rounds) of each side's percentile. Between requests at these rates the processes sleep, so every hop pays a wake-up; the bare proxy shows what one extra hop costs on this machine. Where a rate is not reachable, figures include queueing.",
  ];
  const head = (r: (typeof rows)[number]) => `${fmt(r.overheadP50, 1)} / ${fmt(r.overheadP99, 1)} ms${r.reachable ? "" : ` (not reachable: gw ${fmt(r.gw.achieved, 0)}/s)`}`;
  return {
    title: "Fixed rate: overhead of gw over direct",
    lines,
    data: { rates: rows, raw: Object.fromEntries(runs) },
    problems: rows.filter((r) => r.errors > 0).map((r) => `fixed-rate: ${r.errors} failed requests at ${r.rate}/s`),
    headline: rows.flatMap((r): Array<[string, string]> => [
      [`overhead p50 / p99 at ${r.rate}/s (gw - direct)`, head(r)],
      [`overhead p50 / p99 at ${r.rate}/s beyond a bare proxy hop (gw - bare)`, `${fmt(r.overBareP50, 1)} / ${fmt(r.overBareP99, 1)} ms`],
    ]),
  };
};
