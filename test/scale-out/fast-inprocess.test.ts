// The request path's fast state in the multi-instance mode, two instances in one process on one
// PostgreSQL and one Redis (docs/scale-out.md "Redis"): rate limits, the exact cache and
// Idempotency-Key shared through Redis, and Redis lost and back: no 5xx, then shared again
// (circuit flags: test/scale-out/fast.test.ts, three processes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { SharedRateLimiter } from "../../src/billing/rate-limit-shared.ts";
import type { RunningServer } from "../../src/server.ts";
import type { SharedState } from "../../src/store/shared.ts";
import type { CreateProjectBody } from "../../src/schema/admin.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startPostgres, startRedis, type PostgresService, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { startSharedInstance, type SharedInstance } from "../helpers/shared-gw.ts";

const MODEL = "openai/gpt-4o-mini";

let pg: PostgresService;
let redis: Service;
let upstream: ScriptedUpstream;
const shared: SharedState[] = [];
const servers: RunningServer[] = [];
const started: SharedInstance[] = [];

async function instance(): Promise<RunningServer> {
  const one = await startSharedInstance(pg, redis, upstreamEnv("openai", upstream.url, "sk-fast"));
  started.push(one);
  shared.push(one.shared);
  servers.push(one.server);
  return one.server;
}

interface Project {
  id: string;
  key: string;
}
type Name = "rpm" | "tpm" | "cache" | "limited" | "idem" | "session" | "outage";
const projects = new Map<Name, Project>();
const projectOf = (name: Name): Project => projects.get(name)!;

/** A project with a live key, in PostgreSQL and in the first instance's mirror (the second loads it). */
async function project(first: RunningServer, body: Omit<CreateProjectBody, "name">): Promise<Project> {
  const { balance: _, ...p } = createProject(first.deps.repos.projects, { name: "fast", ...body });
  const { key, secret } = issueKey(first.deps.repos.apiKeys, { projectId: p.id, scopes: ["chat", "cache", "requests"], mode: "live" });
  await shared[0]!.tenants.projects.create(p);
  await shared[0]!.tenants.keys.create(key);
  return { id: p.id, key: secret };
}

beforeAll(async () => {
  [pg, redis, upstream] = await Promise.all([startPostgres(), startRedis(), startScriptedUpstream()]);
  const a = await instance();
  projects.set("rpm", await project(a, { policy: { rate_limits: { rpm: 10 } } }));
  projects.set("tpm", await project(a, { policy: { rate_limits: { tpm: 2000 } } }));
  projects.set("cache", await project(a, {}));
  projects.set("limited", await project(a, { policy: { rate_limits: { rpm: 3 } } }));
  projects.set("idem", await project(a, {}));
  projects.set("session", await project(a, {}));
  projects.set("outage", await project(a, { policy: { rate_limits: { rpm: 1000 } } }));
  await instance();
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await Promise.all([upstream?.stop(), redis?.stop(), pg?.stop()]);
});

const chat = (i: number, key: string, content: string, headers: Record<string, string> = { "x-gw-cache": "off" }, extra: Record<string, unknown> = {}) =>
  post(`${servers[i % servers.length]!.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }], ...extra }, headers);

interface Answer {
  usage: { total_tokens: number };
  gw: { cache: string | null };
}

describe("rate limits on Redis, two instances", () => {
  test("an RPM limit of 10 admits 10 of 30 sent at once round-robin; the rest 429 with Retry-After", async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(i, projectOf("rpm").key, `rpm ${i}`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(20);
    for (const res of results) {
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("10");
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  test("a TPM limit of 2000: the tokens of the answers served stay within it, the rest 429", async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(i, projectOf("tpm").key, `tpm ${i}`, { "x-gw-cache": "off" }, { max_tokens: 100 })));
    let tokens = 0;
    let refused = 0;
    for (const res of results) {
      if (res.status === 200) tokens += ((await res.json()) as Answer).usage.total_tokens;
      else {
        expect(res.status).toBe(429);
        expect(((await res.json()) as { error: { message: string } }).error.message).toContain("2000 tokens per minute");
        refused++;
      }
    }
    expect(tokens).toBeGreaterThan(0);
    expect(tokens).toBeLessThanOrEqual(2000);
    expect(refused).toBeGreaterThan(0);
  });
});

describe("the exact cache on Redis, two instances", () => {
  test("an answer cached through one instance is an exact hit through the other; invalidated on one, a miss on the other", async () => {
    const { id, key } = projectOf("cache");
    const first = await chat(0, key, "What is the capital of Australia?", {});
    expect(first.status).toBe(200);
    expect(((await first.json()) as Answer).gw.cache).toBeNull();
    const calls = upstream.callCount();
    // The store is written off the answer's path: wait for the entry to land in Redis (asking
    // through the gateway meanwhile would call the upstream for each miss).
    await waitFor(async () => ((await shared[0]!.redis.send("KEYS", [`gw:ans:${id}:*:e:*`])) as unknown[]).length > 0, { what: "the entry in Redis" });
    const second = await chat(1, key, "What is the capital of Australia?", {});
    expect(((await second.json()) as Answer).gw.cache).toBe("exact");
    expect(upstream.callCount()).toBe(calls);

    const invalidated = await post(`${servers[1]!.url}/cache/invalidate`, key, { all: true });
    expect(invalidated.status).toBe(200);
    expect(((await invalidated.json()) as { deleted: number }).deleted).toBeGreaterThanOrEqual(1);
    const after = await chat(0, key, "What is the capital of Australia?", {});
    expect(((await after.json()) as Answer).gw.cache).toBeNull();
    expect(upstream.callCount()).toBe(calls + 1);
  });
});

describe("the rate limit and the exact-cache read in one Redis round trip", () => {
  test("a limited project's cached answer is an exact hit on either instance while the limit admits; past it, 429 although cached", async () => {
    const { id, key } = projectOf("limited");
    const question = "What is the capital of New Zealand?";
    const first = await chat(0, key, question, {});
    expect(first.status).toBe(200);
    expect(((await first.json()) as Answer).gw.cache).toBeNull();
    const calls = upstream.callCount();
    await waitFor(async () => ((await shared[0]!.redis.send("KEYS", [`gw:ans:${id}:*:e:*`])) as unknown[]).length > 0, { what: "the entry in Redis" });
    for (const i of [1, 0]) {
      const hit = await chat(i, key, question, {});
      expect(hit.status).toBe(200);
      expect(((await hit.json()) as Answer).gw.cache).toBe("exact");
    }
    // RPM 3 used up: the answer read ahead is not served.
    const refused = await chat(1, key, question, {});
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(upstream.callCount()).toBe(calls);
  });
});

describe("Idempotency-Key on Redis, two instances", () => {
  test("the same key sent to both at once: one answer and one 409; a later replay carries Idempotent-Replayed", async () => {
    const { key } = projectOf("idem");
    upstream.script({ delayMs: 400 }, 1);
    const headers = { "idempotency-key": "order-42", "x-gw-cache": "off" };
    const [a, b] = await Promise.all([chat(0, key, "Place order 42.", headers), chat(1, key, "Place order 42.", headers)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const answered = a.status === 200 ? a : b;
    const body = await answered.text();
    const replay = await chat(a.status === 200 ? 1 : 0, key, "Place order 42.", headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(body);
  });
});

describe("Idempotency-Key on Redis, streams", () => {
  test("a stream answered through one instance is replayed through the other byte for byte", async () => {
    const { key } = projectOf("idem");
    const headers = { "idempotency-key": "stream-7", "x-gw-cache": "off" };
    const first = await chat(0, key, "Stream order 7.", headers, { stream: true });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toStartWith("text/event-stream");
    const bytes = await first.text();
    expect(bytes).toContain("data: [DONE]");
    const replay = await chat(1, key, "Stream order 7.", headers, { stream: true });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await replay.text()).toBe(bytes);
  });
});

describe("session pins on Redis, two instances", () => {
  interface Session {
    pinned: string | null;
    sticky: boolean;
    reason: string;
  }
  /** The turn's trace.session, read once the request log has it. */
  async function sessionOf(i: number, key: string, res: Response): Promise<Session> {
    const id = res.headers.get("x-gw-request-id")!;
    let session: Session | null = null;
    await waitFor(async () => {
      const detail = await fetch(`${servers[i]!.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } });
      if (detail.status !== 200) return false;
      session = ((await detail.json()) as { trace: { session: Session } }).trace.session;
      return true;
    }, { what: `request ${id} in the log` });
    return session!;
  }

  test("a conversation's turns alternate between the instances and stay on the model of its first turn", async () => {
    const { key } = projectOf("session");
    const turn = (i: number) => post(`${servers[i]!.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: `Turn on ${i}: tell me more.` }] }, { "x-gw-session": "conv-7", "x-gw-cache": "off" });
    const first = await turn(0);
    expect(first.status).toBe(200);
    expect(await sessionOf(0, key, first)).toMatchObject({ pinned: null, sticky: false, reason: "new session" });
    const model = ((await first.json()) as { gw: { selected_model: string } }).gw.selected_model;
    // The pin is written to Redis off the answer's path.
    await waitFor(async () => (await shared[0]!.fast.sessions.get(projectOf("session").id, "conv-7"))?.model === model, { what: "the pin in Redis" });
    const second = await turn(1);
    expect(await sessionOf(1, key, second)).toMatchObject({ pinned: model, sticky: true, reason: "kept on the model of turn 1" });
    await waitFor(async () => (await shared[0]!.fast.sessions.get(projectOf("session").id, "conv-7"))?.turns === 2, { what: "turn 2 in Redis" });
    const third = await turn(0);
    expect(await sessionOf(0, key, third)).toMatchObject({ pinned: model, sticky: true, reason: "kept on the model of turn 2" });
  });
});

describe("Redis lost and back", () => {
  test("no 5xx while Redis is down (the local share of each limit); shared limiting again once it returns", async () => {
    const { key } = projectOf("outage");
    const ok = await chat(0, key, "before");
    expect(ok.headers.get("x-ratelimit-limit-requests")).toBe("1000");
    // Each instance counts the others by their heartbeats (every 5 s).
    const counts = () => servers.map((s) => (s.deps.rateLimits instanceof SharedRateLimiter ? s.deps.rateLimits.instances : 0));
    await waitFor(() => counts().every((n) => n === 2), { timeoutMs: 12_000, what: "both instances counting two" });
    const { port, password } = redis;
    await redis.stop();
    for (let i = 0; i < 10; i++) {
      const res = await chat(i, key, `down ${i}`, {});
      expect(res.status).toBe(200);
      // Two instances beat into Redis: each admits its half of the limit on its own.
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("500");
    }
    // With an Idempotency-Key the claim cannot be made: 503, nothing ran.
    const keyed = await chat(0, key, "down keyed", { "idempotency-key": "down-1" });
    expect(keyed.status).toBe(503);
    expect(((await keyed.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");

    redis = await startRedis({ port, password });
    const back = performance.now();
    await waitFor(async () => (await chat(0, key, "back")).headers.get("x-ratelimit-limit-requests") === "1000", { timeoutMs: 5_000, what: "shared rate limits after Redis returned" });
    await waitFor(async () => (await chat(1, key, "back")).headers.get("x-ratelimit-limit-requests") === "1000", { timeoutMs: 5_000, what: "shared rate limits on the second instance" });
    console.log(`shared limiting resumed ${Math.round(performance.now() - back)} ms after Redis returned`);
  });
});
