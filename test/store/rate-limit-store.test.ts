// The rate-limit store's contract against the in-process limiter and against a real redis-server
// (test/helpers/services.ts), plus what only a shared store must prove: exactness across instances.
import { describe, expect, test } from "bun:test";
import { RateLimiter } from "../../src/billing/rate-limit.ts";
import { limitHeaders } from "../../src/billing/rate-limit-headers.ts";
import { RedisRateLimiter } from "../../src/store/redis/rate-limit.ts";
import { RedisFailure } from "../../src/store/redis/redis-call.ts";
import { redisForFile } from "../helpers/services.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { rateLimitContract } from "./contract/rate-limit.contract.ts";

const { client, keySpace } = redisForFile();

rateLimitContract("in process", (clock) => new RateLimiter({ now: () => clock.t }));
rateLimitContract("redis", (clock) => new RedisRateLimiter(client(), { now: () => clock.t, headers: limitHeaders, prefix: keySpace("t") }));

describe("redis: shared across instances", () => {
  test("three limiters on one Redis share 100 RPM: 300 concurrent attempts admit exactly 100", async () => {
    const clock = { t: 1_700_000_000_000 };
    const prefix = keySpace("shared");
    const limiters = [0, 1, 2].map(() => new RedisRateLimiter(client(), { now: () => clock.t, headers: limitHeaders, prefix }));
    const level = [{ id: "p:prj_1:live", name: "project", limits: { rpm: 100 } }];
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => limiters[i % 3]!.admit(`req_${i}`, level, { bound: 0 })));
    const refused = decisions.filter((d) => !d.ok);
    expect(decisions.length - refused.length).toBe(100);
    // Every refusal at the same instant waits one interval (600 ms): Retry-After 1 s.
    for (const d of refused) if (!d.ok) expect(d.retryAfterMs).toBeCloseTo(600, 3);
    clock.t += 600;
    expect((await limiters[1]!.admit("late", level, { bound: 0 })).ok).toBe(true);
    expect((await limiters[2]!.admit("late2", level, { bound: 0 })).ok).toBe(false);
  });

  test("tokens settled on one instance free the allowance for the others", async () => {
    const clock = { t: 1_700_000_000_000 };
    const prefix = keySpace("tok");
    const [a, b] = [0, 1].map(() => new RedisRateLimiter(client(), { now: () => clock.t, headers: limitHeaders, prefix }));
    const level = [{ id: "k:key_1", name: "key", limits: { tpm: 1000 } }];
    expect((await a!.admit("r1", level, { bound: 900 })).ok).toBe(true);
    expect((await b!.admit("r2", level, { bound: 900 })).ok).toBe(false);
    await a!.settle("r1", 50);
    expect((await b!.admit("r3", level, { bound: 900 })).ok).toBe(true);
  });

  test("the record listener settles like the in-process one: a cache hit gives every token back", async () => {
    const clock = { t: 1_700_000_000_000 };
    const prefix = keySpace("listen");
    const [a, b] = [0, 1].map(() => new RedisRateLimiter(client(), { now: () => clock.t, headers: limitHeaders, prefix }));
    const level = [{ id: "k:key_l", name: "key", limits: { tpm: 1000 } }];
    expect((await a!.admit("r1", level, { bound: 900 })).ok).toBe(true);
    const listener: (row: { id: string; cache: string | null; inputTokens: number; outputTokens: number }) => void = a!.listener;
    listener({ id: "r1", cache: "hit", inputTokens: 500, outputTokens: 20 });
    let probes = 0;
    await waitFor(async () => (await b!.admit(`probe${probes++}`, level, { bound: 999 })).ok);
    expect(a!.size.tickets).toBe(0);
  });

  test("keys carry a TTL: a level's hash expires after its allowance is whole plus the grace", async () => {
    const clock = { t: 1_700_000_000_000 };
    const c = client();
    const limiter = new RedisRateLimiter(c, { now: () => clock.t, headers: limitHeaders, prefix: "ttl:", graceMs: 5_000 });
    await limiter.admit("r1", [{ id: "k:key_ttl", name: "key", limits: { rpm: 60, tpm: 600 } }], { bound: 300 });
    // Tokens: 300 of 600 per minute = 30 s until whole, plus 5 s grace.
    const ttl = Number(await c.send("PTTL", ["ttl:rl:k:key_ttl"]));
    expect(ttl).toBeGreaterThan(30_000);
    expect(ttl).toBeLessThanOrEqual(35_000);
  });

  test("a flushed script cache falls back to EVAL (NOSCRIPT) and still decides", async () => {
    const clock = { t: 1_700_000_000_000 };
    const c = client();
    const limiter = new RedisRateLimiter(c, { now: () => clock.t, headers: limitHeaders, prefix: keySpace("ns") });
    const level = [{ id: "k:key_ns", name: "key", limits: { rpm: 1 } }];
    expect((await limiter.admit("r1", level, { bound: 0 })).ok).toBe(true);
    await c.send("SCRIPT", ["FLUSH"]);
    expect((await limiter.admit("r2", level, { bound: 0 })).ok).toBe(false);
  });

  test("Redis unreachable: the call fails within its bound as a RedisFailure, never hangs", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const limiter = new RedisRateLimiter(client(`redis://127.0.0.1:${port}`), { headers: limitHeaders, timeoutMs: 200 });
    const failure = await limiter.admit("r1", [{ id: "k:x", name: "key", limits: { rpm: 1 } }], { bound: 0 }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(RedisFailure);
  });
});
