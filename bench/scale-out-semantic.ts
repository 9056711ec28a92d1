// `bun bench/scale-out-semantic.ts`: the multi-instance semantic cache with the sentence model
// (docs/scale-out.md "Semantic cache"). Instance a stores BENCH_ENTRIES answers with semantic
// questions; then (1) how long a new instance takes to be warm (its index holding all of them, the
// vectors read from PostgreSQL) against embedding the same questions itself, and (2) how long an
// answer stored on a takes to be in another instance's index (p50 of BENCH_PROBES).
// Knobs: BENCH_ENTRIES (400), BENCH_PROBES (30), BENCH_EMBEDDER (use).
import { createEmbedder, type EmbedderKind } from "../src/cache/embedder/create-embedder.ts";
import type { SharedSemanticCache } from "../src/cache/semantic-shared.ts";
import { startScriptedUpstream } from "../test/helpers/scripted-upstream.ts";
import { startPostgres, startRedis } from "../test/helpers/services.ts";
import { startSharedInstance, type SharedInstance } from "../test/helpers/shared-gw.ts";
import { upstreamEnv } from "../test/helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../test/helpers/test-gw.ts";
import { envNumber, fmt, median } from "./lib/stats.ts";

const ENTRIES = envNumber("BENCH_ENTRIES", 400);
const PROBES = envNumber("BENCH_PROBES", 30);
const EMBEDDER = (process.env.BENCH_EMBEDDER ?? "use") as EmbedderKind;
const MODEL = "openai/gpt-4o-mini";

const [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
const started: SharedInstance[] = [];
const instance = async () => {
  const one = await startSharedInstance(pg, redis, { ...upstreamEnv("openai", upstream.url, "sk-bench"), GW_SEMANTIC_EMBEDDER: EMBEDDER });
  started.push(one);
  return one;
};
const semanticOf = (i: SharedInstance) => i.server.deps.semantic as SharedSemanticCache;
const question = (n: number) => `What is step ${n} of the ${["billing", "deploy", "backup", "audit"][n % 4]} runbook for region ${n % 97}?`;

async function waitUntil(cond: () => boolean, limitMs: number): Promise<number> {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > limitMs) throw new Error("timed out");
    await new Promise((r) => setImmediate(r));
  }
  return performance.now() - t0;
}

try {
  const a = await instance();
  const admin = async (path: string, body: unknown) => (await (await fetch(`${a.origin}/v1/admin${path}`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body),
  })).json()) as { id: string; key: string };
  const { id } = await admin("/projects", { name: "sem-bench", policy: { semantic_cache: true } });
  const { key } = await admin(`/projects/${id}/keys`, { name: "live", scopes: ["chat"] });
  const ask = async (on: SharedInstance, content: string) => {
    const res = await post(`${on.origin}/v1/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }] });
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
    await res.arrayBuffer();
  };
  let t0 = performance.now();
  for (let n = 0; n < ENTRIES; n++) await ask(a, question(n));
  await semanticOf(a).settled();
  const storing = performance.now() - t0;
  const held = semanticOf(a).stats().entries;

  t0 = performance.now();
  const c = await instance();
  const startMs = performance.now() - t0;
  const warmMs = await waitUntil(() => semanticOf(c).stats().entries >= held, 600_000);

  const embedder = createEmbedder(EMBEDDER, { use: { timeoutMs: 60_000 } });
  await embedder.ready();
  t0 = performance.now();
  for (let n = 0; n < ENTRIES; n += 8) await embedder.embed(Array.from({ length: Math.min(8, ENTRIES - n) }, (_, i) => question(n + i)));
  const embedAll = performance.now() - t0;
  await embedder.close();

  const delays: number[] = [];
  for (let p = 0; p < PROBES; p++) {
    const before = semanticOf(c).stats().entries;
    const t = performance.now();
    await ask(a, `Probe ${p}: where is the ${p}th spare key of the lab kept?`);
    const answered = performance.now() - t;
    delays.push(answered + await waitUntil(() => semanticOf(c).stats().entries > before, 30_000));
  }
  console.log(JSON.stringify({
    embedder: EMBEDDER, entries: held, storing_s: fmt(storing / 1000), new_instance_start_ms: fmt(startMs),
    new_instance_warm_ms: fmt(warmMs), embedding_them_instead_ms: fmt(embedAll),
    asked_on_a_to_indexed_on_c_p50_ms: fmt(median(delays)), load: (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" "),
  }, null, 1));
} finally {
  await Promise.all(started.map((s) => s.stop()));
  await Promise.all([pg.stop(), redis.stop(), upstream.stop()]);
}
