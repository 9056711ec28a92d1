// The semantic cache in the multi-instance mode, instances in one process on one PostgreSQL and one
// Redis (docs/scale-out.md "What lives where"): each instance's own index fed through the Redis stream,
// hits read from Redis, an emptied project missing everywhere, a fresh instance warm from the
// stream's history, and Redis lost and back (misses, no 5xx, then fed again). n-gram embedder.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RunningServer } from "../../src/server.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

const MODEL = "openai/gpt-4o-mini";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
const started: SharedInstance[] = [];

async function instance(): Promise<RunningServer> {
  const one = await startSharedInstance(pg, redis, { ...upstreamEnv("openai", upstream.url, "sk-sem"), GW_SEMANTIC_EMBEDDER: "ngram" });
  started.push(one);
  return one.server;
}

let a: RunningServer;
let b: RunningServer;

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  a = await instance();
  b = await instance();
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await Promise.all([redis?.stop(), pg?.stop(), upstream?.stop()]);
});

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(`${res.status} ${text}`).toStartWith(`${status} `);
  return JSON.parse(text) as T;
}

/** A project with the semantic cache on and a live key, made through instance a's admin API. */
async function projectKey(): Promise<string> {
  const admin = (path: string, body: unknown) => fetch(`${a.url}/admin${path}`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const { id } = await json<{ id: string }>(await admin("/projects", { name: "sem", policy: { semantic_cache: true, semantic_threshold: 0.6 } }), 201);
  return (await json<{ key: string }>(await admin(`/projects/${id}/keys`, { name: "live", scopes: ["chat", "cache", "requests"] }), 201)).key;
}

interface Answer { choices: Array<{ message: { content: string } }>; gw: { cache: string | null; similarity?: number } }
const ask = async (server: RunningServer, key: string, content: string): Promise<Answer> =>
  json<Answer>(await post(`${server.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }] }), 200);
const entries = (server: RunningServer): number => server.deps.semantic!.stats().entries;

describe("the semantic cache shared by two instances", () => {
  test("asked on a, its paraphrase on b is a semantic hit; a one-number mutant on b misses; emptied on b, the paraphrase on a misses", async () => {
    const key = await projectKey();
    const [before, beforeA] = [entries(b), entries(a)];
    const first = await ask(a, key, "How do I install the command line tool on Linux?");
    expect(first.gw.cache).toBeNull();
    // Stored off the answer's path, then read from the stream by b.
    await waitFor(() => entries(b) > before && entries(a) > beforeA, { what: "the question in both indexes" });
    const para = await ask(b, key, "How can I install the command line tool on Linux?");
    expect(para.gw.cache).toBe("semantic");
    expect(para.gw.similarity).toBeGreaterThan(0.6);
    expect(para.choices[0]!.message.content).toBe(first.choices[0]!.message.content);

    await ask(a, key, "How many moons does Jupiter have in 2021?");
    await waitFor(() => entries(b) > before + 1, { what: "the second question on b" });
    expect((await ask(b, key, "How many moons does Jupiter have in 2023?")).gw.cache).toBeNull();

    // A hit stores nothing, so the same paraphrase can be asked again after the emptying.
    const again = "How could I install the command line tool on Linux?";
    expect((await ask(a, key, again)).gw.cache).toBe("semantic");
    const emptied = await json<{ deleted: number }>(await post(`${b.url}/cache/invalidate`, key, { all: true }), 200);
    expect(emptied.deleted).toBeGreaterThanOrEqual(1);
    // a's index still holds the question: its entry is gone from Redis, so it only misses.
    expect((await ask(a, key, again)).gw.cache).toBeNull();
  });

  test("an instance started later is warm: it indexes the stream's recent history", async () => {
    const key = await projectKey();
    const seen = entries(a);
    await ask(a, key, "What does the retry budget of the gateway control?");
    await waitFor(() => entries(a) > seen, { what: "the question in a's index" });
    const c = await instance();
    await waitFor(() => entries(c) > 0, { what: "c's index filled from the stream" });
    await c.deps.semantic!.settled();
    expect((await ask(c, key, "What does the retry budget of this gateway control?")).gw.cache).toBe("semantic");
  });
});

describe("Redis lost and back", () => {
  test("while Redis is down semantic questions are answered (misses, never a 5xx); once back, the stream feeds the other instance again", async () => {
    const key = await projectKey();
    const { port, password } = redis;
    await redis.stop();
    for (let i = 0; i < 4; i++) {
      const res = await post(`${(i % 2 ? b : a).url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content: `How do I rotate the signing key number ${i}?` }] });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Answer).gw.cache).toBeNull();
    }
    redis = await startRedis({ port, password });
    const before = entries(b);
    // The first answers after the restart may find the clients still reconnecting: ask until one is indexed on b.
    let n = 0;
    await waitFor(async () => {
      await ask(a, key, `Where are the audit logs of workspace ${String.fromCharCode(65 + n++)} kept?`);
      return entries(b) > before;
    }, { timeoutMs: 15_000, what: "a's answers indexed on b again" });
    const last = String.fromCharCode(65 + n - 1);
    expect((await ask(b, key, `Where are the audit logs of workspace ${last} stored?`)).gw.cache).toBe("semantic");
  });
});
