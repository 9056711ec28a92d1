// The semantic stream on a real Redis (src/store/redis/semantic-stream.ts): a follower gets the newest
// history then what comes after, in order and once; removals and emptied projects round-trip; the
// stream stays near its cap; a follower reads on after Redis is stopped and started again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { redisSemanticStream, type SemanticStreamEvent } from "../../src/store/redis/semantic-stream.ts";
import { startRedis, type Service } from "../helpers/services.ts";
import { waitFor } from "../helpers/wait-for.ts";

let redis: Service;
const clients: RedisClient[] = [];
async function client(): Promise<RedisClient> {
  const c = new RedisClient(redis.url, { autoReconnect: true, enableOfflineQueue: false, maxRetries: 1_000_000 });
  await c.connect();
  clients.push(c);
  return c;
}
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await redis?.stop();
});

const add = (id: number, prefix = "t1"): SemanticStreamEvent =>
  ({ kind: "add", id, project: `p-${prefix}`, partition: "part", question: `question ${id}?`, expires: Date.now() + 60_000, from: "writer" });

describe("the semantic stream", () => {
  test("a follower reads the newest `history` entries, then each new one once, in order; drops and emptied projects round-trip", async () => {
    const feed = redisSemanticStream(await client(), await client(), { prefix: "t1:" });
    for (let id = 1; id <= 5; id++) await feed.publish(add(id));
    const seen: SemanticStreamEvent[] = [];
    const follower = feed.follow(3, (events) => seen.push(...events), { onError: () => {}, onResumed: () => {} });
    try {
      await waitFor(() => seen.length >= 3, { what: "the history" });
      await feed.publish(add(6));
      await feed.publish({ kind: "drop", ids: [4, 5], from: "writer" });
      await feed.publish({ kind: "empty", project: "p-t1", from: "writer" });
      await waitFor(() => seen.length >= 6, { what: "the new entries" });
      expect(seen.map((e) => (e.kind === "add" ? e.id : e.kind))).toEqual([3, 4, 5, 6, "drop", "empty"]);
      expect(seen[3]).toMatchObject({ kind: "add", id: 6, project: "p-t1", partition: "part", question: "question 6?", from: "writer" });
      expect(seen[4]).toEqual({ kind: "drop", ids: [4, 5], from: "writer" });
      expect(seen[5]).toEqual({ kind: "empty", project: "p-t1", from: "writer" });
    } finally {
      follower.stop();
    }
  });

  test("the stream is trimmed to about its cap", async () => {
    const writer = await client();
    const feed = redisSemanticStream(writer, await client(), { prefix: "t2:", maxLen: 100 });
    for (let id = 1; id <= 1_000; id += 100) await Promise.all(Array.from({ length: 100 }, (_, i) => feed.publish(add(id + i, "t2"))));
    const length = Number(await writer.send("XLEN", ["t2:sem"]));
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(300);
  });

  test("Redis stopped and started again: the follower says so once, then reads on", async () => {
    const feed = redisSemanticStream(await client(), await client(), { prefix: "t3:", retryMs: 100 });
    const seen: number[] = [];
    let errors = 0;
    let resumed = 0;
    const follower = feed.follow(10, (events) => seen.push(...events.flatMap((e) => (e.kind === "add" ? [e.id] : []))), {
      onError: () => errors++, onResumed: () => resumed++,
    });
    try {
      await feed.publish(add(1, "t3"));
      await waitFor(() => seen.length === 1, { what: "the first entry" });
      const { port, password } = redis;
      await redis.stop();
      await waitFor(() => errors === 1, { what: "the failure said" });
      redis = await startRedis({ port, password });
      // The writer's own connection comes back by itself too: publish until one lands.
      await waitFor(async () => feed.publish(add(2, "t3")).then(() => true, () => false), { timeoutMs: 15_000, what: "a publish after the restart" });
      await waitFor(() => seen.includes(2), { timeoutMs: 15_000, what: "the entry after the restart" });
      expect(errors).toBe(1);
      expect(resumed).toBe(1);
    } finally {
      follower.stop();
    }
  });
});
