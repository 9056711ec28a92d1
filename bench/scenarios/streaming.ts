// Streaming chat, OpenAI pass-through (issue 19 (e)): time to first body byte and to last byte
// direct, through the bare proxy, Portkey and gw, against the upstream paced at BENCH_CHUNK_DELAY_MS
// between chunks. A separate Bun client process opens the streams; the sides alternate per round.
import { track } from "../lib/processes.ts";
import { envNumber, fmt, median, percentiles, table } from "../lib/stats.ts";
import { settings, targets, type Scenario, type Stack } from "../lib/stack.ts";
import type { Target } from "../lib/wrk.ts";

const STREAMS = envNumber("BENCH_STREAMS", 200);
const CONCURRENCY = envNumber("BENCH_STREAM_CONCURRENCY", 8);

interface ClientResult {
  ttfb: number[];
  ttlb: number[];
  errors: number;
  firstError: string | null;
}

async function runClient(t: Target, count: number): Promise<ClientResult> {
  const job = { url: t.url, headers: t.headers, body: t.body, count, concurrency: CONCURRENCY, timeoutMs: 30_000 };
  const proc = track(Bun.spawn(["bun", "run", "bench/clients/stream-client.ts", JSON.stringify(job)], { stdout: "pipe", stderr: "inherit", timeout: 120_000 }));
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  if (proc.exitCode !== 0) throw new Error(`stream client failed (exit ${proc.exitCode}): ${text}`);
  return JSON.parse(text) as ClientResult;
}

type Side = "direct" | "bare" | "portkey" | "gw";
const SIDES: Array<{ id: Side; name: string; target: (s: Stack) => Promise<Target> }> = [
  { id: "direct", name: "direct", target: (s) => targets.direct(s, { stream: true }) },
  { id: "bare", name: "bare Bun proxy", target: (s) => targets.bare(s, { stream: true }) },
  { id: "portkey", name: "Portkey", target: (s) => targets.portkey(s, { stream: true }) },
  { id: "gw", name: "gw live key", target: (s) => targets.gwLive(s, { stream: true }) },
];

export const streaming: Scenario = async (stack) => {
  const { rounds } = settings;
  const problems: string[] = [];
  const sides: Array<(typeof SIDES)[number] & { t: Target }> = [];
  for (const side of SIDES) {
    try {
      sides.push({ ...side, t: await side.target(stack) });
    } catch (err) {
      problems.push(`streaming: ${side.name} did not start: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const all = new Map(sides.map((s) => [s.id, { ttfb: [] as number[], ttlb: [] as number[], errors: 0 }]));
  const perRound: Array<Partial<Record<Side, { ttfbP50: number; ttlbP50: number }>>> = [];
  for (const side of sides) await runClient(side.t, CONCURRENCY * 2); // warm-up
  for (let round = 1; round <= rounds; round++) {
    const row: Partial<Record<Side, { ttfbP50: number; ttlbP50: number }>> = {};
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      const r = await runClient(side.t, STREAMS);
      const acc = all.get(side.id)!;
      acc.ttfb.push(...r.ttfb);
      acc.ttlb.push(...r.ttlb);
      acc.errors += r.errors;
      if (r.firstError) problems.push(`streaming ${side.id}: ${r.errors} failed streams, first: ${r.firstError}`);
      const got = { ttfbP50: percentiles(r.ttfb).p50, ttlbP50: percentiles(r.ttlb).p50 };
      row[side.id] = got;
      console.log(`  streaming round ${round} ${side.id}: ttfb p50 ${fmt(got.ttfbP50)} ttlb p50 ${fmt(got.ttlbP50)} ms errors ${r.errors}`);
    }
    perRound.push(row);
  }
  const p = Object.fromEntries([...all].map(([id, a]) => [id, { ttfb: percentiles(a.ttfb), ttlb: percentiles(a.ttlb) }])) as Partial<Record<Side, { ttfb: ReturnType<typeof percentiles>; ttlb: ReturnType<typeof percentiles> }>>;
  const direct = p.direct;
  const added = (id: Side, m: "ttfb" | "ttlb", q: "p50" | "p99") => (p[id] && direct ? p[id][m][q] - direct[m][q] : NaN);
  const deltaRounds = (id: Side, f: "ttfbP50" | "ttlbP50") => median(perRound.map((r) => (r[id]?.[f] ?? NaN) - (r.direct?.[f] ?? NaN)));
  const lines = [
    `${rounds} interleaved rounds x ${STREAMS} streams per side, ${CONCURRENCY} concurrent; upstream: ${settings.words} words -> ${settings.words + 3} chunks + [DONE], ${settings.chunkDelayMs} ms between chunks. Percentiles over all streams of all rounds; "added" is the side's figure minus direct's.`,
    "",
    ...table(
      ["side", "TTFB p50", "TTFB p99", "TTLB p50", "TTLB p99", "TTFB added p50", "TTFB added p99", "TTLB added p50", "TTLB added p99", "failed"],
      sides.map((s) => {
        const q = p[s.id]!;
        return [s.name, fmt(q.ttfb.p50), fmt(q.ttfb.p99), fmt(q.ttlb.p50), fmt(q.ttlb.p99),
          fmt(added(s.id, "ttfb", "p50")), fmt(added(s.id, "ttfb", "p99")), fmt(added(s.id, "ttlb", "p50")), fmt(added(s.id, "ttlb", "p99")), String(all.get(s.id)!.errors)];
      }),
    ),
    "",
    `Median over rounds of gw's per-round p50 added: TTFB ${fmt(deltaRounds("gw", "ttfbP50"))} ms, TTLB ${fmt(deltaRounds("gw", "ttlbP50"))} ms (issue 19 target: first byte added under 1 ms at p50). All times in ms.`,
  ];
  return {
    title: "Streaming: time to first and last byte (OpenAI pass-through)",
    lines,
    data: { percentiles: p, perRound, errors: Object.fromEntries([...all].map(([id, a]) => [id, a.errors])) },
    problems,
    headline: [
      ["(e) streaming TTFB p50 / p99 added by gw", `${fmt(added("gw", "ttfb", "p50"))} / ${fmt(added("gw", "ttfb", "p99"))} ms`],
      ["(e) streaming TTLB p50 / p99 added by gw", `${fmt(added("gw", "ttlb", "p50"))} / ${fmt(added("gw", "ttlb", "p99"))} ms`],
      ["(e) streaming TTFB p50 added by the bare proxy", `${fmt(added("bare", "ttfb", "p50"))} ms`],
    ],
  };
};
