// The multi-instance rate limiter's failure behaviour on a real redis-server (docs/scale-out.md
// "Redis"): instances counted by heartbeat, a Redis that stops answering makes each limiter admit its
// share of the limit (fail open) or refuse (fail closed), and a Redis back on the same port is used again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { limitHeaders } from "../../src/billing/rate-limit-headers.ts";
import { SharedRateLimiter, type RedisFailureMode } from "../../src/billing/rate-limit-shared.ts";
import { InstanceCount } from "../../src/store/redis/instances.ts";
import { RedisRateLimiter } from "../../src/store/redis/rate-limit.ts";
import { startRedis, type Service } from "../helpers/services.ts";
import { waitFor } from "../helpers/wait-for.ts";

let redis: Service;
const clients: RedisClient[] = [];
const counters: InstanceCount[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of counters) await c.stop();
  for (const c of clients) c.close();
  await redis?.stop();
});

/** One instance's limiter on its own client, as openSharedState makes it. */
async function limiter(id: string, failure: RedisFailureMode, prefix: string): Promise<SharedRateLimiter> {
  const client = new RedisClient(redis.url, { autoReconnect: true, enableOfflineQueue: false, connectionTimeout: 2_000, maxRetries: 4_294_967_295 });
  clients.push(client);
  await client.connect();
  const instances = new InstanceCount(client, id, { prefix });
  counters.push(instances);
  await instances.start();
  return new SharedRateLimiter(new RedisRateLimiter(client, { headers: limitHeaders, prefix }), { now: Date.now, instances, failure, onError: () => {} });
}

const level = (rpm: number) => [{ id: "p:prj_1:live", name: "project", limits: { rpm } }] as const;
let seq = 0;
async function admitted(l: SharedRateLimiter, n: number, rpm: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const d = await l.admitShared(`req_${++seq}`, level(rpm), { bound: 1 });
    if (d?.ok) ok++;
  }
  return ok;
}

test("three instances: 30 rpm admits 30 on Redis; Redis gone, each admits its third (open) or nothing (closed); back on the same port, shared again", async () => {
  const [a, b] = [await limiter("gw_a", "open", "t1:"), await limiter("gw_b", "open", "t1:")];
  const c = await limiter("gw_c", "closed", "t1:");
  // The first two counted fewer when they beat alone: one more round and every one counts three.
  for (const counter of counters) await counter.beat();
  expect([a.instances, b.instances, c.instances]).toEqual([3, 3, 3]);
  expect((await admitted(a, 15, 30)) + (await admitted(b, 15, 30)) + (await admitted(c, 15, 30))).toBe(30);

  const { port, password } = redis;
  await redis.stop();
  // A fresh limit level, so the local tables start full: 30 / 3 = 10 each for the open ones.
  expect(await admitted(a, 15, 31)).toBe(10);
  expect(await admitted(b, 15, 31)).toBe(10);
  expect(a.fallingBack).toBe(true);
  const refused = await c.admitShared("req_closed", level(31), { bound: 1 });
  expect(refused).toBeNull();
  // The refusal names the configured limit, not the share.
  const over = await a.admitShared("req_over", level(31), { bound: 1 });
  expect(over?.ok === false && over.level.limits.rpm).toBe(31);

  redis = await startRedis({ port, password });
  await waitFor(async () => (await a.admitShared(`req_${++seq}`, level(32), { bound: 1 }))?.headers["x-ratelimit-limit-requests"] === "32", { timeoutMs: 5_000, what: "the limiter on Redis again" });
  expect(a.fallingBack).toBe(false);
  await waitFor(async () => (await c.admitShared(`req_${++seq}`, level(32), { bound: 1 })) !== null, { timeoutMs: 5_000, what: "the closed limiter admitting again" });
});

test("a stopped instance leaves the count at once; one silent past the stale age is not counted", async () => {
  const client = clients[0]!;
  const now = { t: 1_000_000 };
  const x = new InstanceCount(client, "gw_x", { prefix: "t2:", now: () => now.t, staleMs: 15_000 });
  const y = new InstanceCount(client, "gw_y", { prefix: "t2:", now: () => now.t, staleMs: 15_000 });
  await x.beat();
  await y.beat();
  expect(y.count).toBe(2);
  await y.stop();
  await x.beat();
  expect(x.count).toBe(1);
  await y.beat();
  now.t += 16_000;
  await x.beat();
  expect(x.count).toBe(1);
  await x.stop();
});

test("a Redis that hangs (every call timing out) is asked once per retry interval, not by every admission", async () => {
  const client = new RedisClient(redis.url, { autoReconnect: true, enableOfflineQueue: false, connectionTimeout: 2_000, maxRetries: 4_294_967_295 });
  clients.push(client);
  await client.connect();
  let asked = 0;
  // The real limiter, counted: each admission that reaches it waits for Redis's answer or the time-out.
  class Counted extends RedisRateLimiter {
    override admit(...args: Parameters<RedisRateLimiter["admit"]>) {
      asked++;
      return super.admit(...args);
    }
  }
  const instances = new InstanceCount(client, "gw_hang", { prefix: "t3:" });
  const limiter = new SharedRateLimiter(new Counted(client, { headers: limitHeaders, prefix: "t3:" }), { now: Date.now, instances, failure: "open", onError: () => {} });
  expect(await admitted(limiter, 1, 1000)).toBe(1);
  const control = new RedisClient(redis.url);
  clients.push(control);
  await control.send("CLIENT", ["PAUSE", "3000", "ALL"]);
  try {
    asked = 0;
    // 20 admissions while no command is answered: the first times out, the rest go to the fallback.
    expect(await admitted(limiter, 20, 1000)).toBe(20);
    expect(limiter.fallingBack).toBe(true);
    expect(asked).toBeLessThan(10);
  } finally {
    await control.send("CLIENT", ["UNPAUSE"]);
  }
  await waitFor(async () => {
    await limiter.admitShared(`req_${++seq}`, level(1000), { bound: 1 });
    return !limiter.fallingBack;
  }, { timeoutMs: 5_000, what: "the limiter on Redis again" });
});
