// The dashboard's per-model figures in the multi-instance mode (docs/scale-out.md "Dashboard and audit
// log"): three in-process instances serve 100 live requests (10 exact cache hits); the overview's
// by_model and cache split, the cache page and the recommendations answer 200 with the same figures on
// every instance, matching what was served.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { redisCacheFootprint } from "../../src/store/redis/cache-stats.ts";
import { json } from "../helpers/expect-json.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
const instances: SharedInstance[] = [];
let projectId: string;
let key: string;
let cookie: string;
/** Per model: requests served; and the exact hits served. */
const served = new Map<string, number>();
let exactHits = 0;

const at = (n: number): SharedInstance => instances[n]!;
const dash = (n: number, path: string) => fetch(`${at(n).origin}/dashboard/api${path}`, { headers: { cookie } });
const MODELS = ["openai/gpt-4o-mini", "openai/gpt-4o"] as const;

async function ask(n: number, model: string, content: string): Promise<string> {
  const res = await post(`${at(n).server.url}/chat/completions`, key, { model, messages: [{ role: "user", content }], max_tokens: 8 });
  await json(res, 200);
  const cache = res.headers.get("x-gw-cache") ?? "";
  served.set(model, (served.get(model) ?? 0) + 1);
  if (cache === "exact") exactHits++;
  return cache;
}

const entries = async () => (await redisCacheFootprint(at(0).shared.redis, projectId)).entries;

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream({ record: false })]);
  for (let n = 0; n < 3; n++) instances.push(await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-stats")));
  const admin = (path: string, body: unknown) => post(`${at(0).server.url}/admin${path}`, ADMIN_TOKEN, body);
  projectId = (await json<{ id: string }>(await admin("/projects", { name: "stats" }), 201)).id;
  key = (await json<{ key: string }>(await admin(`/projects/${projectId}/keys`, { scopes: ["chat", "requests"] }), 201)).key;
  const session = await fetch(`${at(1).origin}/dashboard/api/session`, { method: "POST", body: JSON.stringify({ token: key }) });
  await json(session, 200);
  cookie = (session.headers.get("set-cookie") ?? "").split(";")[0]!;

  // Ten questions asked once, round-robin; once their answers are in Redis, asked again on another instance (exact hits).
  for (let i = 0; i < 10; i++) expect(await ask(i % 3, MODELS[i % 2]!, `Repeatable question ${i}?`)).toBe("miss");
  await waitFor(async () => (await entries()) >= 10, { what: "ten answers in Redis", timeoutMs: 10_000 });
  for (let i = 0; i < 10; i++) expect(await ask((i + 1) % 3, MODELS[i % 2]!, `Repeatable question ${i}?`)).toBe("exact");
  for (let i = 0; i < 80; i++) await ask(i % 3, MODELS[i % 4 === 0 ? 1 : 0]!, `Unique question ${i}?`);
  await waitFor(async () => (await entries()) >= 90, { what: "ninety answers in Redis", timeoutMs: 10_000 });
}, 120_000);

afterAll(async () => {
  for (const i of instances) await i.stop();
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

interface Overview {
  metrics: { requests: number };
  cache: { hits: number; exact: number; semantic: number; hit_rate: number; exact_rate: number; semantic_rate: number };
  series: { points: Array<{ cache_exact: number; cache_semantic: number; requests: number }> };
  by_model: Array<{ model: string; requests: number; cost: number; p95_latency_ms: number | null; points: unknown[] }>;
}

describe("dashboard figures from the shared rollups", () => {
  test("the overview's by_model and cache split: what was served, the same on every instance", async () => {
    expect(exactHits).toBe(10);
    const read = async (n: number) => json<Overview>(await dash(n, "/overview?period=1h"), 200);
    // The leader rebuilds the per-model rollups every few seconds: awaited, never slept on.
    await waitFor(async () => (await read(2)).by_model.reduce((s, m) => s + m.requests, 0) === 100, { what: "100 requests in by_model", timeoutMs: 30_000 });
    const first = await read(0);
    expect(first.metrics.requests).toBe(100);
    expect(Object.fromEntries(first.by_model.map((m) => [m.model, m.requests]))).toEqual(Object.fromEntries(served));
    for (const m of first.by_model) {
      expect(m.cost).toBeGreaterThan(0);
      expect(m.p95_latency_ms).not.toBeNull();
    }
    expect(first.cache).toEqual({ hits: 10, exact: 10, semantic: 0, hit_rate: 10, exact_rate: 10, semantic_rate: 0 });
    expect(first.series.points.reduce((s, p) => s + p.cache_exact, 0)).toBe(10);
    // Compared without the time axis (a minute may turn between two reads).
    const figures = (o: Overview) => ({ requests: o.metrics.requests, cache: o.cache, by_model: o.by_model.map(({ points: _, ...m }) => m) });
    for (const n of [1, 2]) expect(figures(await read(n))).toEqual(figures(first));
  });

  test("the cache page: entries in Redis, hits and savings from the rollups, miss reasons; the same on every instance", async () => {
    const read = async (n: number) => json<{ entries: number; bytes: number; footprint_exact: boolean; hits: number; exact: number; saved_tokens: number;
      miss_reasons: Array<{ reason: string; count: number }>; series: { points: Array<{ requests: number }> } }>(await dash(n, "/cache?period=24h"), 200);
    await waitFor(async () => (await read(1)).hits === 10, { what: "ten hits on the cache page", timeoutMs: 30_000 });
    const first = await read(0);
    expect(first).toMatchObject({ object: "dashboard.cache", enabled: true, mode: "exact", entries: 90, footprint_exact: true, hits: 10, exact: 10 });
    expect(first.bytes).toBeGreaterThan(90 * 100);
    expect(first.saved_tokens).toBeGreaterThan(0);
    // Every miss was a first ask (the 10 hits carry no miss reason): counted from all three instances' traces.
    expect(first.miss_reasons).toEqual([{ reason: "not_found", count: 90 }]);
    expect(first.series.points.reduce((s, p) => s + p.requests, 0)).toBe(100);
    const figures = ({ series: _, ...rest }: Awaited<ReturnType<typeof read>>) => rest;
    for (const n of [1, 2]) expect(figures(await read(n))).toEqual(figures(first));
  });

  test("past the SCAN's cap the footprint says so: the put counter (an upper bound) and the sampled mean size", async () => {
    const full = await redisCacheFootprint(at(0).shared.redis, projectId);
    expect(full).toMatchObject({ entries: 90, exact: true });
    // One SCAN call of 10 names cannot cover the keyspace (each entry also has its id name).
    const capped = await redisCacheFootprint(at(1).shared.redis, projectId, { maxRounds: 1, count: 10 });
    expect(capped).toMatchObject({ entries: 90, exact: false });
    const sampled = await redisCacheFootprint(at(2).shared.redis, projectId, { maxSized: 9 });
    expect(sampled).toMatchObject({ entries: 90, exact: false });
    // Nine sized entries times 90: near the whole sum (the entries differ only in a few bytes).
    expect(Math.abs(sampled.bytes - full.bytes) / full.bytes).toBeLessThan(0.05);
  });

  test("recommendations: the semantic cache at 10% exact repeats of 100 requests, the same on every instance", async () => {
    await waitFor(async () => (await json<{ data: unknown[] }>(await dash(0, "/recommendations"), 200)).data.length > 0, { what: "a recommendation", timeoutMs: 30_000 });
    const first = await json<{ object: string; rule: string; data: Array<Record<string, unknown>> }>(await dash(0, "/recommendations"), 200);
    expect(first.object).toBe("list");
    expect(first.data).toEqual([expect.objectContaining({ kind: "enable_semantic_cache", exact_repeat_share: 0.1, requests_30d: 100 })]);
    expect(first.data[0]!.estimated_monthly_saving_usd).toBeGreaterThan(0);
    for (const n of [1, 2]) expect(await json(await dash(n, "/recommendations"), 200)).toEqual(first);
  });
});
