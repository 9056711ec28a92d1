// The fast state shared by three gw processes on one Redis (docs/scale-out.md "Redis"), requests
// sent round-robin: rate limits, the exact cache and its invalidation, Idempotency-Key, and Redis
// killed mid-run (no 5xx; each instance its share of the limit) then back on the same port.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { countMessageTokens } from "../../src/analysis/tokens.ts";
import { answerWith } from "../flows/billing/billing-helpers.ts";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startRedis, type Service } from "../helpers/services.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { post } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";

const MODEL = "openai/gpt-4o-mini";

let m: MultiGw;
let upstream: ScriptedUpstream;
/** The Redis started in place of the killed one (m.stop() stops the first only). */
let restarted: Service | undefined;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(3, upstreamEnv("openai", upstream.url, "sk-operator"));
});
afterAll(async () => {
  await m?.stop();
  await Promise.all([upstream?.stop(), restarted?.stop()]);
});

/** A project with this policy and a live key, made through instance 0's admin API. */
async function projectAndKey(policy: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const { id } = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "fast", policy }), 201);
  return { id, key: (await json<{ key: string }>(await m.admin("POST", `/projects/${id}/keys`, { name: "live", scopes: ["chat", "cache", "requests"] }), 201)).key };
}
const projectWithKey = async (policy: Record<string, unknown> = {}): Promise<string> => (await projectAndKey(policy)).key;

const chat = (i: number, key: string, content: string, headers: Record<string, string> = { "x-gw-cache": "off" }, extra: Record<string, unknown> = {}) =>
  post(`${m.instances[i % m.instances.length]!.url}/chat/completions`, key, { model: MODEL, messages: [{ role: "user", content }], ...extra }, headers);

/** `n` requests round-robin, at most `width` in flight; statuses and bodies in order. */
async function fire(n: number, width: number, send: (i: number) => Promise<Response>): Promise<Response[]> {
  const out: Response[] = [];
  for (let start = 0; start < n; start += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, j) => send(start + j)))));
  }
  return out;
}

interface Answer {
  usage: { total_tokens: number };
  gw: { cache: string | null };
}

describe("rate limits shared by three instances", () => {
  test("an RPM limit of 100: of 300 sent round-robin, 100 are admitted (plus what the minute refills meanwhile), the rest 429 with Retry-After", async () => {
    const key = await projectWithKey({ rate_limits: { rpm: 100 } });
    const t0 = performance.now();
    const results = await fire(300, 60, (i) => chat(i, key, `rpm ${i}`));
    // GCRA refills one request every 600 ms: the burst is 100, the rest came back while they ran.
    const refill = Math.ceil((performance.now() - t0) / 600);
    const served = results.filter((r) => r.status === 200).length;
    expect(served).toBeGreaterThanOrEqual(100);
    expect(served).toBeLessThanOrEqual(100 + refill);
    for (const res of results) {
      expect([200, 429]).toContain(res.status);
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("100");
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    console.log(`rpm 100: ${served} of 300 admitted in ${Math.round(performance.now() - t0)} ms (refill allowance ${refill})`);
  });

  test("a TPM limit of 3000: the tokens answered stay within it (plus the refill) and use most of it, the rest 429", async () => {
    const key = await projectWithKey({ rate_limits: { tpm: 3000 } });
    const content = "Summarise the quarterly numbers for the board.";
    // Each answer uses its whole max_tokens and exactly the input's count: the count gw makes when
    // the cheap bound is refused, so what it admits on that count is what is used.
    const estimate = countMessageTokens([{ role: "user", content }]) + 100;
    upstream.script({ body: answerWith(estimate - 100, 100) }, 90);
    const t0 = performance.now();
    const results = await fire(90, 45, (i) => chat(i, key, content, { "x-gw-cache": "off" }, { max_tokens: 100 }));
    const refill = Math.ceil(((performance.now() - t0) * 3000) / 60_000);
    upstream.reset();
    let tokens = 0;
    let refused = 0;
    for (const res of results) {
      if (res.status === 200) tokens += ((await res.json()) as Answer).usage.total_tokens;
      else {
        const body = await json<{ error: { message: string } }>(res, 429);
        expect(body.error.message).toContain("3000 tokens per minute");
        refused++;
      }
    }
    // Most of the allowance is used (requests admitted on the larger bound give back the rest once they settle).
    expect(tokens).toBeGreaterThan(2000);
    expect(tokens).toBeLessThanOrEqual(3000 + refill);
    expect(refused).toBeGreaterThan(0);
    console.log(`tpm 3000: ${tokens} tokens served (${estimate} each), ${refused} refused (refill allowance ${refill})`);
  });
});

describe("the exact cache shared by three instances", () => {
  test("an answer cached through instance 0 is an exact hit through 1 and 2; emptied on 2, the next request on 1 is a miss", async () => {
    const key = await projectWithKey();
    const q = "What is the capital of Australia?";
    expect((await json<Answer>(await chat(0, key, q, {}), 200)).gw.cache).toBeNull();
    // The store is written off the answer's path: wait for it to land.
    await waitFor(async () => (await json<Answer>(await chat(1, key, q, {}), 200)).gw.cache === "exact", { what: "an exact hit on instance 1" });
    expect((await json<Answer>(await chat(2, key, q, {}), 200)).gw.cache).toBe("exact");
    const calls = upstream.callCount();
    const emptied = await json<{ deleted: number }>(await post(`${m.instances[2]!.url}/cache/invalidate`, key, { all: true }), 200);
    expect(emptied.deleted).toBeGreaterThanOrEqual(1);
    expect((await json<Answer>(await chat(1, key, q, {}), 200)).gw.cache).toBeNull();
    expect(upstream.callCount()).toBe(calls + 1);
  });
});

describe("Idempotency-Key shared by three instances", () => {
  test("the same key sent to two instances at once: one answer and one 409; a later replay on the third carries Idempotent-Replayed", async () => {
    const key = await projectWithKey();
    upstream.script({ delayMs: 500 }, 1);
    const headers = { "idempotency-key": "order-42", "x-gw-cache": "off" };
    const [a, b] = await Promise.all([chat(0, key, "Place order 42.", headers), chat(1, key, "Place order 42.", headers)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const conflict = a.status === 409 ? a : b;
    expect((await conflict.json()) as { error: { code: string } }).toMatchObject({ error: { code: "conflict" } });
    const body = await (a.status === 200 ? a : b).text();
    const replay = await chat(2, key, "Place order 42.", headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(body);
  });
});

describe("Redis killed mid-run", () => {
  test("clients never get a 5xx while Redis dies and returns; meanwhile each instance limits to its third; back on the same port, shared 429s resume within 5 s", async () => {
    const key = await projectWithKey({ rate_limits: { rpm: 12 } });
    // Every instance beats every 5 s: once each has beaten since all three run, each counts three.
    const since = Date.now();
    const probe = new RedisClient(m.redis.url);
    try {
      await waitFor(async () => {
        const scores = ((await probe.send("ZRANGE", ["gw:inst", "0", "-1", "WITHSCORES"])) as Array<[string, number] | string>).flat().filter((_, i) => i % 2 === 1);
        return scores.length === 3 && scores.every((s) => Number(s) > since);
      }, { timeoutMs: 12_000, what: "three instances beating" });
    } finally {
      probe.close();
    }
    // Six clients round-robin over the three instances until the end of the test.
    const seen: Array<{ at: number; status: number; limit: string | null }> = [];
    let running = true;
    let n = 0;
    const clients = Array.from({ length: 6 }, async () => {
      while (running) {
        const res = await chat(n++, key, "load");
        seen.push({ at: performance.now(), status: res.status, limit: res.headers.get("x-ratelimit-limit-requests") });
        await res.arrayBuffer();
      }
    });
    try {
      // Shared: the burst of 12, then 429s.
      await waitFor(() => seen.some((r) => r.status === 429 && r.limit === "12"), { timeoutMs: 30_000, what: "the shared limit's first 429" });
      const { port, password } = m.redis;
      const killed = performance.now();
      await m.redis.stop();
      // The fallback: each instance admits its own share, 12 / 3, and says so in the headers.
      await waitFor(() => seen.filter((r) => r.at > killed && r.limit === "4").length >= 30, { timeoutMs: 30_000, what: "fallback decisions" });
      const down = seen.filter((r) => r.at > killed && r.limit === "4");
      expect(down.filter((r) => r.status === 200).length).toBeLessThanOrEqual(12 + 3);

      restarted = await startRedis({ port, password });
      const back = performance.now();
      await waitFor(() => seen.some((r) => r.at > back && r.status === 429 && r.limit === "12"), { timeoutMs: 5_000, what: "shared 429s after Redis returned" });
      const resumed = seen.find((r) => r.at > back && r.status === 429 && r.limit === "12")!.at - back;
      console.log(`${seen.length} requests; shared 429s resumed ${Math.round(resumed)} ms after Redis returned`);
    } finally {
      running = false;
      await Promise.all(clients);
    }
    expect(seen.filter((r) => r.status >= 500)).toEqual([]);
    expect(new Set(seen.map((r) => r.limit))).toEqual(new Set(["12", "4"]));
  });
});

describe("session pins shared by three instances", () => {
  test("a conversation sent round-robin stays on the model of its first turn: each instance reads the pin the last one left", async () => {
    const { id, key } = await projectAndKey();
    const probe = new RedisClient(m.env.GW_REDIS_URL!);
    try {
      let first = "";
      for (let i = 0; i < 4; i++) {
        const instance = m.instances[i % 3]!;
        const res = await post(`${instance.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: `Turn ${i}: go on.` }] }, { "x-gw-session": "conv-3", "x-gw-cache": "off" });
        const { gw } = await json<{ gw: { selected_model: string; request_id: string } }>(res, 200);
        first ||= gw.selected_model;
        expect(gw.selected_model).toBe(first);
        // The pin is written off the answer's path: the next turn goes once it is in Redis.
        await waitFor(async () => Number(await probe.send("HGET", [`gw:sess:${id}\u0000conv-3`, "n"])) === i + 1, { what: `turn ${i + 1} in Redis` });
        if (i === 0) continue;
        const { trace } = await json<{ trace: { session: { pinned: string; sticky: boolean; reason: string } } }>(
          await fetch(`${instance.url}/requests/${gw.request_id}`, { headers: { authorization: `Bearer ${key}` } }), 200);
        expect(trace.session).toMatchObject({ pinned: first, sticky: true, reason: `kept on the model of turn ${i}` });
      }
    } finally {
      probe.close();
    }
  });
});

// Last: the circuit it opens stays open for its cooldown (30 s).
describe("circuit flags shared by three instances", () => {
  test("a circuit opened by failures on instance 0 keeps instances 1 and 2 from calling that provider", async () => {
    const key = await projectWithKey();
    upstream.reset();
    upstream.script({ status: 500 }, 1_000);
    let refusal = "";
    await waitFor(async () => {
      const res = await chat(0, key, "fail");
      if (res.status !== 503) return false;
      refusal = ((await res.json()) as { error: { message: string } }).error.message;
      return true;
    }, { timeoutMs: 20_000, what: "instance 0's circuit to open" });
    expect(refusal).toContain("circuit open");
    upstream.reset();
    for (const i of [1, 2]) await waitFor(async () => (await chat(i, key, "elsewhere")).status === 503, { timeoutMs: 5_000, what: `the flag on instance ${i}` });
    const calls = upstream.callCount();
    for (const i of [1, 2]) {
      const body = await json<{ error: { code: string } }>(await chat(i, key, "elsewhere again"), 503);
      expect(body.error.code).toBe("provider_unavailable");
    }
    expect(upstream.callCount()).toBe(calls);
  });
});
