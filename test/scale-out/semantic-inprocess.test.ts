// The multi-instance semantic cache, instances in one process (docs/scale-out.md "What lives where"): indexes
// fed through the Redis stream, hits read from Redis (a stale index only misses), removals told to every
// index, a later instance warm from the stream's history, Redis lost and back (misses, no 5xx, fed again).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RunningServer } from "../../src/server.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";
import type { SharedSemanticCache } from "../../src/cache/semantic-shared.ts";

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

/** A project with the semantic cache on and a live key, made through instance a's admin API. */
async function projectKey(): Promise<string> {
  return (await projectAndKey()).key;
}
async function projectAndKey(): Promise<{ id: string; key: string }> {
  const admin = (path: string, body: unknown) => fetch(`${a.url}/admin${path}`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const { id } = await json<{ id: string }>(await admin("/projects", { name: "sem", policy: { semantic_cache: true, semantic_threshold: 0.6 } }), 201);
  return { id, key: (await json<{ key: string }>(await admin(`/projects/${id}/keys`, { name: "live", scopes: ["chat", "cache", "requests"] }), 201)).key };
}

interface Answer { choices: Array<{ message: { content: string } }>; gw: { cache: string | null; similarity?: number } }
const ask = async (server: RunningServer, key: string, content: string): Promise<Answer> =>
  json<Answer>(await post(`${server.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }] }), 200);
const entries = (server: RunningServer): number => server.deps.semantic!.stats().entries;

describe("the semantic cache shared by two instances", () => {
  test("asked on a, its paraphrase on b is a semantic hit; a one-number mutant on b misses; emptied behind the stream's back, a's stale index only misses", async () => {
    const { id, key } = await projectAndKey();
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
    // Emptied in Redis with no word on the stream (as if the message were lost): a's index still
    // holds the question, but its entry is gone from Redis, so it only misses.
    const held = entries(a);
    expect(await b.deps.shared!.fast.answers.invalidate(id, { all: true })).toBeGreaterThanOrEqual(1);
    expect(entries(a)).toBe(held);
    expect((await ask(a, key, again)).gw.cache).toBeNull();
  });

  test("removals travel too: invalidated by tag on b, the entry leaves a's index; emptied on b, a's index holds none of the project", async () => {
    const key = await projectKey();
    const base = entries(a);
    const tagged = (content: string, tags: string[]) => post(`${a.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }], cache: { tags } });
    expect((await tagged("How do I configure the proxy for staging?", ["staging-docs"])).status).toBe(200);
    expect((await tagged("Which regions does the status page report on?", ["status-docs"])).status).toBe(200);
    await waitFor(() => entries(a) === base + 2 && entries(b) >= base + 2, { what: "both questions indexed on a and b" });
    const removed = await json<{ deleted: number }>(await post(`${b.url}/cache/invalidate`, key, { tags: ["staging-docs"] }), 200);
    expect(removed.deleted).toBe(1);
    await waitFor(() => entries(a) === base + 1, { what: "the staging entry gone from a's index" });
    await post(`${b.url}/cache/invalidate`, key, { all: true });
    await waitFor(() => entries(a) === base, { what: "the project's entries gone from a's index" });
    expect(entries(b)).toBe(base);
  });

  test("stream entries that are not gw's (another writer, a damaged field) are skipped; the next is indexed", async () => {
    const key = await projectKey();
    const redis = a.deps.shared!.redis;
    await redis.send("XADD", ["gw:sem", "*", "id", "not-a-number", "project", "p", "partition", "x", "question", "q", "expires", "1", "from", "elsewhere"]);
    await redis.send("XADD", ["gw:sem", "*", "something", "else"]);
    const before = entries(b);
    await ask(a, key, "What is the default time-out of a provider call?");
    await waitFor(() => entries(b) > before, { what: "the next question indexed on b" });
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
    const { id: project, key } = await projectAndKey();
    const { port, password } = redis;
    await redis.stop();
    for (let i = 0; i < 4; i++) {
      const res = await post(`${(i % 2 ? b : a).url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content: `How do I rotate the signing key number ${i}?` }] });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Answer).gw.cache).toBeNull();
    }
    redis = await startRedis({ port, password });
    // The first answers after the restart may find the clients still reconnecting: ask until the
    // newest answer's entry (its vector in PostgreSQL names it) is in b's index.
    const shared = b.deps.semantic as SharedSemanticCache;
    let n = 0;
    const sql = a.deps.shared!.pg.sql;
    const stored = async (): Promise<number[]> =>
      (await sql`SELECT id::int AS id FROM semantic_vectors WHERE project_id = ${project} ORDER BY id`).map((r: { id: number }) => r.id);
    await waitFor(async () => {
      const before = (await stored()).length;
      await ask(a, key, `Where are the audit logs of workspace ${String.fromCharCode(65 + n++)} kept?`);
      // This answer's own entry (stored after the answer, when Redis took it), then b indexing it.
      const landed = await waitFor(async () => (await stored()).length > before, { timeoutMs: 2_000, what: "its vector" }).catch(() => false);
      const newest = (await stored()).at(-1);
      return landed && newest !== undefined && await waitFor(() => shared.holds(newest), { timeoutMs: 2_000, what: "b indexed it" }).catch(() => false);
    }, { timeoutMs: 30_000, what: "a's answers indexed on b again" });
    const last = String.fromCharCode(65 + n - 1);
    expect((await ask(b, key, `Where are the audit logs of workspace ${last} stored?`)).gw.cache).toBe("semantic");
  });
});
