// The exact cache's answer store contract against the in-process SQLite store and a real
// redis-server (test/helpers/services.ts), plus Redis's own: sharing across instances, TTLs, outages.
import { afterAll, describe, expect, test } from "bun:test";
import type { CachedAnswer } from "../../src/cache/answer-store-types.ts";
import type { Usage } from "../../src/canonical/completion.ts";
import type { CacheRecord } from "../../src/store/repos/cache-entries.ts";
import type { SharedAnswerStore } from "../../src/store/answer-cache-store.ts";
import { RedisAnswerStore } from "../../src/store/redis/answers.ts";
import { RedisFailure } from "../../src/store/redis/redis-call.ts";
import { fixture, type Fixture } from "../cache/answer-store-helpers.ts";
import { redisForFile } from "../helpers/services.ts";
import { answersContract } from "./contract/answers.contract.ts";

const { client, keySpace } = redisForFile();
const fixtures: Fixture[] = [];
afterAll(() => {
  for (const f of fixtures) f.cleanup();
});

const record = (a: CachedAnswer | null): CacheRecord | null => (a === null ? null : { ...a, usage: { ...a.usage } as CacheRecord["usage"] });

/** The SQLite store seen through the shared interface: the same calls, answered at once. */
function sqliteView(f: Fixture): SharedAnswerStore {
  return {
    get: async (projectId, key, now) => record(f.store.get(projectId, key, now)),
    byId: async (projectId, id, now) => record(f.store.byId(projectId, id, now)),
    put: async (entry) => record(f.store.put({ ...entry, usage: entry.usage as Usage }))!,
    invalidate: (projectId, what) => f.store.invalidate(projectId, what),
    onRemoved: (listener) => f.store.onRemoved(listener),
  };
}

answersContract("in process (sqlite)", (now) => {
  const f = fixture({ clock: { now: () => now } });
  fixtures.push(f);
  return { store: sqliteView(f), removed: f.removed };
});
answersContract("redis", (now) => {
  const store = new RedisAnswerStore(client(), { now: () => now, prefix: keySpace("t") });
  const removed: number[] = [];
  store.onRemoved((ids) => removed.push(...ids));
  return { store, removed };
});

describe("redis: answers shared across instances", () => {
  const now = Date.now();
  const entry = (key: string, tags: string[] = []) => ({
    projectId: "prj_1", key, partition: "p", model: "m", provider: "openai", body: '{"answer":1}',
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, tags, question: null, createdAt: now, expiresAt: now + 90_000,
  });

  test("stored through one instance, an exact hit through another; emptied on one, a miss on the third", async () => {
    const prefix = keySpace("shared");
    const [a, b, c] = [0, 1, 2].map(() => new RedisAnswerStore(client(), { now: () => now, prefix }));
    const stored = await a!.put(entry("k1"));
    expect((await b!.get("prj_1", "k1", now))?.id).toBe(stored.id);
    await b!.invalidate("prj_1", { all: true });
    expect(await c!.get("prj_1", "k1", now)).toBeNull();
  });

  test("an entry, its id and its tag sets live for the entry's TTL; emptying is one INCR of the generation", async () => {
    const c = client();
    const store = new RedisAnswerStore(c, { now: () => now, prefix: "ttl:" });
    const stored = await store.put(entry("k2", ["t"]));
    for (const name of ["ttl:ans:prj_1:0:e:k2", `ttl:ans:id:${stored.id}`, "ttl:ans:prj_1:0:t:t"]) {
      const ttl = Number(await c.send("PTTL", [name]));
      expect(ttl).toBeGreaterThan(85_000);
      expect(ttl).toBeLessThanOrEqual(90_000);
    }
    await store.invalidate("prj_1", { all: true });
    expect(await c.send("GET", ["ttl:ans:gen:prj_1"])).toBe("1");
  });

  test("Redis unreachable: a lookup fails as a RedisFailure within its bound (the caller's miss)", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const store = new RedisAnswerStore(client(`redis://127.0.0.1:${port}`), { timeoutMs: 200 });
    expect(await store.get("prj_1", "k", now).catch((err: unknown) => err)).toBeInstanceOf(RedisFailure);
  });
});
