// The idempotency store's contract against the SQLite repo and a real redis-server
// (test/helpers/services.ts), plus Redis's own: two instances at once, TTLs, an unreachable server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import type { IdempotencyStore } from "../../src/store/idempotency-store.ts";
import { idempotencyRepo } from "../../src/store/repos/idempotency.ts";
import { RedisIdempotencyStore } from "../../src/store/redis/idempotency.ts";
import { RedisFailure } from "../../src/store/redis/redis-call.ts";
import { startRedis, type Service } from "../helpers/services.ts";
import { idempotencyContract } from "./contract/idempotency.contract.ts";

let redis: Service;
const clients: RedisClient[] = [];
const dir = mkdtempSync(join(tmpdir(), "gw-idem-"));
const db = openDatabase(dir);
let run = 0;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  await redis?.stop();
});

function client(url = redis.url): RedisClient {
  const c = new RedisClient(url);
  clients.push(c);
  return c;
}

// The SQLite repo satisfies the interface as it is.
const sqlite: IdempotencyStore = idempotencyRepo(db);
idempotencyContract("sqlite", () => sqlite);
idempotencyContract("redis", (now) => new RedisIdempotencyStore(client(), { now: () => now, prefix: `t${run++}:` }));

describe("redis: idempotency locks across instances", () => {
  test("three instances claim one key at once: one runs, two see it running, a replay reads the result", async () => {
    const now = Date.now();
    const prefix = `shared${run++}:`;
    const stores = [0, 1, 2].map(() => new RedisIdempotencyStore(client(), { now: () => now, prefix }));
    const claim = (i: number) => ({ projectId: "prj_1", key: "same", fingerprint: "fp", requestId: `req_${i}`, now, expiresAt: now + 60_000 });
    const won = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.claim(claim(i))));
    expect(won.filter(Boolean).length).toBe(1);
    const winner = `req_${won.indexOf(true)}`;
    expect((await stores[1]!.get("prj_1", "same"))?.state).toBe("running");
    const body = new TextEncoder().encode('{"ok":true}');
    expect(await stores[won.indexOf(true) % 3]!.finish("prj_1", "same", winner, { state: "stored", status: 200, headers: {}, body, expiresAt: now + 120_000 })).toBe(true);
    const replay = await stores[2]!.get("prj_1", "same");
    expect([replay?.state, replay?.requestId, new TextDecoder().decode(replay?.body ?? new Uint8Array())]).toEqual(["stored", winner, '{"ok":true}']);
  });

  test("the claim lives for its TTL (PX), the finished record for its own", async () => {
    const now = Date.now();
    const c = client();
    const store = new RedisIdempotencyStore(c, { now: () => now, prefix: "ttl:" });
    await store.claim({ projectId: "prj_1", key: "t", fingerprint: "fp", requestId: "req_1", now, expiresAt: now + 30_000 });
    const name = "ttl:idem:prj_1\nt";
    const first = Number(await c.send("PTTL", [name]));
    expect(first).toBeGreaterThan(25_000);
    expect(first).toBeLessThanOrEqual(30_000);
    await store.finish("prj_1", "t", "req_1", { state: "stored", status: 200, headers: {}, body: new Uint8Array([1]), expiresAt: now + 90_000 });
    expect(Number(await c.send("PTTL", [name]))).toBeGreaterThan(85_000);
  });

  test("Redis unreachable: a claim fails as a RedisFailure within its bound", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const store = new RedisIdempotencyStore(client(`redis://127.0.0.1:${port}`), { timeoutMs: 200 });
    const now = Date.now();
    const failure = await Promise.resolve(store.claim({ projectId: "p", key: "k", fingerprint: "f", requestId: "r", now, expiresAt: now + 1000 })).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(RedisFailure);
  });
});
