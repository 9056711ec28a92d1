// The exact response cache through the HTTP server (issue 7): the same gw test-mode request
// answered from the cache (X-Gw-Cache on; every request after the first is an exact hit) against
// the uncached test-mode answer (X-Gw-Cache: off: analysis, routing, the simulated call), in the
// same run, interleaved. One connection measures latency; sixteen measure throughput.
import { fmt, median, ratio, table } from "../lib/stats.ts";
import { settings, targets, type Scenario } from "../lib/stack.ts";
import { runWrk, type Target, type WrkResult } from "../lib/wrk.ts";

export const cache: Scenario = async (stack) => {
  const uncached = await targets.gwTest(stack);
  const { "x-gw-cache": _off, ...headers } = uncached.headers;
  const cached: Target = { ...uncached, headers };
  const { rounds, seconds, warmupSeconds } = settings;
  const runs: Record<string, WrkResult[]> = {};
  const shapes = [
    { id: "hit-c1", t: cached, c: 1 }, { id: "miss-c1", t: uncached, c: 1 },
    { id: "hit-c16", t: cached, c: 16 }, { id: "miss-c16", t: uncached, c: 16 },
  ];
  for (const s of shapes) await runWrk(s.t, { seconds: warmupSeconds, connections: s.c });
  for (let round = 1; round <= rounds; round++) {
    for (const s of shapes) {
      const w = await runWrk(s.t, { seconds, connections: s.c });
      (runs[s.id] ??= []).push(w);
      console.log(`  cache round ${round} ${s.id}: ${w.rps.toFixed(0)} req/s p50 ${fmt(w.p50)} p99 ${fmt(w.p99)} ms errors ${w.errors}`);
    }
  }
  const m = (id: string, f: (w: WrkResult) => number) => median(runs[id]!.map(f));
  const errors = Object.values(runs).flat().reduce((a, w) => a + w.errors, 0);
  return {
    title: "Exact cache hit vs uncached test-mode answer (HTTP, same run)",
    lines: [
      `wrk -t1, ${rounds} interleaved rounds x ${seconds} s; medians. Test key, gw-auto, a 900-character prompt.`,
      "",
      ...table(["shape", "req/s", "p50 ms", "p99 ms"], shapes.map((s) => [s.id, fmt(m(s.id, (w) => w.rps), 0), fmt(m(s.id, (w) => w.p50)), fmt(m(s.id, (w) => w.p99))])),
      "",
      `exact hit p50 at one connection: ${fmt(m("hit-c1", (w) => w.p50))} ms vs ${fmt(m("miss-c1", (w) => w.p50))} ms uncached; throughput ${ratio(m("hit-c16", (w) => w.rps), m("miss-c16", (w) => w.rps))} of the uncached.`,
    ],
    data: Object.fromEntries(Object.keys(runs).map((id) => [id, { rps: m(id, (w) => w.rps), p50: m(id, (w) => w.p50), p99: m(id, (w) => w.p99) }])),
    headline: [["exact hit p50 (c1)", `${fmt(m("hit-c1", (w) => w.p50))} ms`], ["exact hit / uncached req/s (c16)", ratio(m("hit-c16", (w) => w.rps), m("miss-c16", (w) => w.rps))]],
    problems: errors > 0 ? [`cache: ${errors} failed requests`] : [],
  };
};
