// The Redis stores' factory (store/redis/stores.ts) on one client and a real redis-server: each
// store works through it, and every key it leaves expires except the per-project generation and the
// id counter (one small key each), so nothing grows without bound.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { limitHeaders } from "../../src/billing/rate-limit-headers.ts";
import { redisStores } from "../../src/store/redis/stores.ts";
import { startRedis, type Service } from "../helpers/services.ts";

let redis: Service;
let client: RedisClient;
beforeAll(async () => {
  redis = await startRedis();
  client = new RedisClient(redis.url);
});
afterAll(async () => {
  client?.close();
  await redis?.stop();
});

test("one client, five stores; every key but the generations and the id counter carries a TTL", async () => {
  const now = Date.now();
  const stores = redisStores(client, { limitHeaders, now: () => now, prefix: "f:" });
  const admitted = await stores.rateLimits.admit("req_1", [{ id: "p:prj_1:live", name: "project", limits: { rpm: 10, tpm: 1000 } }], { bound: 100 });
  expect(admitted.ok).toBe(true);
  expect(admitted.headers["x-ratelimit-remaining-requests"]).toBe("9");
  await stores.rateLimits.settle("req_1", 40);
  expect(await stores.idempotency.claim({ projectId: "prj_1", key: "k", fingerprint: "f", requestId: "req_1", now, expiresAt: now + 60_000 })).toBe(true);
  const answer = await stores.answers.put({
    projectId: "prj_1", key: "a", partition: "p", model: "m", provider: "openai", body: "{}",
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, tags: ["t"], question: null, createdAt: now, expiresAt: now + 60_000,
  });
  expect((await stores.answers.get("prj_1", "a", now))?.id).toBe(answer.id);
  await stores.answers.invalidate("prj_1", { all: true });
  await stores.sessions.set("prj_1", "s", "m", "openai");
  await stores.circuitFlags.open("openai/m", { until: now + 30_000, reason: "down" }, now);

  const names = (await client.send("KEYS", ["f:*"])) as string[];
  const forever: string[] = [];
  for (const name of names) if (Number(await client.send("PTTL", [name])) < 0) forever.push(name);
  expect(forever.sort()).toEqual(["f:ans:gen:prj_1", "f:ans:seq"]);
  expect(names.length).toBeGreaterThanOrEqual(8);
});
