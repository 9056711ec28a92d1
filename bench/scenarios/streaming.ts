// Streaming chat, OpenAI pass-through: time to first body byte and to last byte through gw vs
// direct, against the upstream paced at BENCH_CHUNK_DELAY_MS between chunks. A separate Bun client
// process opens the streams; gw and direct alternate per round.
import { track } from "../lib/processes.ts";
import { envNumber, fmt, median, percentiles, table } from "../lib/stats.ts";
import { settings, targets, type Scenario } from "../lib/stack.ts";
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

export const streaming: Scenario = async (stack) => {
  const { rounds } = settings;
  const sides = { direct: await targets.direct(stack, true), gw: await targets.gwLive(stack, true) };
  const all = { direct: { ttfb: [] as number[], ttlb: [] as number[], errors: 0 }, gw: { ttfb: [] as number[], ttlb: [] as number[], errors: 0 } };
  const perRound: Array<Record<string, { ttfbP50: number; ttlbP50: number }>> = [];
  for (const t of Object.values(sides)) await runClient(t, CONCURRENCY * 2); // warm-up
  const problems: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    const row: Record<string, { ttfbP50: number; ttlbP50: number }> = {};
    for (const side of ["direct", "gw"] as const) {
      const r = await runClient(sides[side], STREAMS);
      all[side].ttfb.push(...r.ttfb);
      all[side].ttlb.push(...r.ttlb);
      all[side].errors += r.errors;
      if (r.firstError) problems.push(`streaming ${side}: ${r.errors} failed streams, first: ${r.firstError}`);
      row[side] = { ttfbP50: percentiles(r.ttfb).p50, ttlbP50: percentiles(r.ttlb).p50 };
      console.log(`  streaming round ${round} ${side}: ttfb p50 ${fmt(row[side].ttfbP50)} ttlb p50 ${fmt(row[side].ttlbP50)} ms errors ${r.errors}`);
    }
    perRound.push(row);
  }
  const p = { direct: { ttfb: percentiles(all.direct.ttfb), ttlb: percentiles(all.direct.ttlb) }, gw: { ttfb: percentiles(all.gw.ttfb), ttlb: percentiles(all.gw.ttlb) } };
  const deltaRounds = (f: "ttfbP50" | "ttlbP50") => median(perRound.map((r) => r.gw![f] - r.direct![f]));
  const lines = [
    `${rounds} interleaved rounds x ${STREAMS} streams per side, ${CONCURRENCY} concurrent; upstream: ${settings.words} words -> ${settings.words + 3} chunks + [DONE], ${settings.chunkDelayMs} ms between chunks. Percentiles over all streams of all rounds.`,
    "",
    ...table(
      ["metric", "direct p50", "direct p99", "gw p50", "gw p99", "gw - direct p50", "gw - direct p99"],
      (["ttfb", "ttlb"] as const).map((m) => [
        m === "ttfb" ? "time to first byte (ms)" : "time to last byte (ms)",
        fmt(p.direct[m].p50), fmt(p.direct[m].p99), fmt(p.gw[m].p50), fmt(p.gw[m].p99),
        fmt(p.gw[m].p50 - p.direct[m].p50), fmt(p.gw[m].p99 - p.direct[m].p99),
      ]),
    ),
    "",
    `Median over rounds of the per-round p50 delta: TTFB ${fmt(deltaRounds("ttfbP50"))} ms, TTLB ${fmt(deltaRounds("ttlbP50"))} ms. Failed streams: direct ${all.direct.errors}, gw ${all.gw.errors}.`,
  ];
  return {
    title: "Streaming: time to first and last byte (OpenAI pass-through)",
    lines,
    data: { percentiles: p, perRound, errors: { direct: all.direct.errors, gw: all.gw.errors } },
    problems,
    headline: [
      ["streaming TTFB p50 / p99 added by gw", `${fmt(p.gw.ttfb.p50 - p.direct.ttfb.p50)} / ${fmt(p.gw.ttfb.p99 - p.direct.ttfb.p99)} ms`],
      ["streaming TTLB p50 / p99 added by gw", `${fmt(p.gw.ttlb.p50 - p.direct.ttlb.p50)} / ${fmt(p.gw.ttlb.p99 - p.direct.ttlb.p99)} ms`],
    ],
  };
};
