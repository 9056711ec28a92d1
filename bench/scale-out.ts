// `bun bench/scale-out.ts`: what the multi-instance mode's shared stores add to a request (issue 24:
// at most 1 ms at p50). One single-node gw and one multi-instance gw (real PostgreSQL and Redis on
// loopback) in front of the same scripted upstream, the same project on each (rate limits, prepaid
// credit, daily and monthly block budgets), measured in interleaved rounds by one closed-loop client.
// Knobs: BENCH_ROUNDS (5), BENCH_REQUESTS per round and side (400), BENCH_CONCURRENCY (4).
import { openSync } from "node:fs";
import { join } from "node:path";
import { startPostgres, startRedis } from "../test/helpers/services.ts";
import { freePort, startUpstream, stopAll, tempDir, track, waitForHttp } from "./lib/processes.ts";
import { envNumber, fmt, median, percentiles } from "./lib/stats.ts";

const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const REQUESTS = envNumber("BENCH_REQUESTS", 400);
const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 4);
const ADMIN = "bench-admin-token-".padEnd(64, "0");
const SECRET = "bench-secret-key-".padEnd(64, "0");

interface Side {
  name: string;
  url: string;
  key: string;
}

async function startSide(name: string, upstreamUrl: string, env: Record<string, string>): Promise<Side> {
  const dir = tempDir(`gw-bench-${name}-`);
  const port = freePort();
  track(Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(port), "--data", join(dir, "data")], {
    stdout: openSync(join(dir, "gw.log"), "w"), stderr: "inherit",
    env: { ...process.env, OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: upstreamUrl, GW_ADMIN_TOKEN: ADMIN, GW_SECRET_KEY: SECRET, GW_LOG_LEVEL: "info", ...env },
  }));
  const base = `http://127.0.0.1:${port}/v1`;
  await waitForHttp(`${base}/models`, 60_000);
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${base}/admin${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${name}: POST /admin${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  // As bench/lib/processes.ts limitedProjectKey: every limit far above what a run uses.
  const project = await admin("/projects", {
    name: "bench-limits", billing: { mode: "prepaid" },
    policy: { rate_limits: { rpm: 100_000_000, tpm: 100_000_000_000, per_key: { rpm: 100_000_000, tpm: 100_000_000_000 } }, budgets: { daily: 1_000_000, monthly: 10_000_000 } },
  });
  await admin(`/projects/${String(project.id)}/credits`, { amount: 1_000_000 });
  const key = String((await admin(`/projects/${String(project.id)}/keys`, {})).key);
  return { name, url: base, key };
}

/** The machine's load average (1, 5, 15 min): figures on a shared machine mean little without it. */
const load = async (): Promise<string> => (await Bun.file("/proc/loadavg").text().catch(() => "? ? ?")).split(" ").slice(0, 3).join(" ");

const prompt = "Summarise the following note for a colleague. ".repeat(20).slice(0, 900);
let serial = 0;

/** `n` requests by `CONCURRENCY` closed loops; each request's latency in ms. A unique prompt per
 * request keeps the cache from answering (`cache`: the same prompt, so every one after the first hits). */
async function run(side: Side, n: number, cache: boolean): Promise<number[]> {
  const times: number[] = [];
  let left = n;
  const loop = async () => {
    while (left-- > 0) {
      const content = cache ? prompt : `${serial++} ${prompt}`;
      const t0 = performance.now();
      const res = await fetch(`${side.url}/chat/completions`, {
        method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${side.key}` },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content }], max_tokens: 64 }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${side.name} answered ${res.status}`);
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return times;
}

try {
  const [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startUpstream({ delayMs: 0, chunkDelayMs: 5, words: 18 })]);
  try {
    const sides = [
      await startSide("single-node", upstream.url, {}),
      await startSide("multi-instance", upstream.url, { GW_DATABASE_URL: pg.url, GW_REDIS_URL: redis.url }),
    ];
    console.log(`load average at start: ${await load()}`);
    for (const cache of [false, true]) {
      const p50s = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      for (const s of sides) await run(s, 100, cache); // warm-up
      for (let round = 1; round <= ROUNDS; round++) {
        // Alternating which side goes first takes drift on the shared machine out of the difference.
        for (const s of round % 2 ? sides : [...sides].reverse()) {
          const p = percentiles(await run(s, REQUESTS, cache));
          p50s.get(s.name)!.push(p.p50);
          console.log(`  ${cache ? "cache hit" : "miss"} round ${round} ${s.name}: p50 ${fmt(p.p50, 3)} p99 ${fmt(p.p99, 3)} ms`);
        }
      }
      const [a, b] = sides.map((s) => median(p50s.get(s.name)!)) as [number, number];
      console.log(`${cache ? "exact-cache hits" : "answered upstream (cache miss)"}: p50 single-node ${fmt(a, 3)} ms, multi-instance ${fmt(b, 3)} ms, added ${fmt(b - a, 3)} ms (median of ${ROUNDS} rounds x ${REQUESTS} requests, ${CONCURRENCY} loops; load average ${await load()})`);
    }
  } finally {
    await stopAll();
    await Promise.all([pg.stop(), redis.stop()]);
  }
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
