// The real servers issue 24's stores will run on (test/helpers/services.ts): Bun.redis with a Lua
// script in one call, Bun.sql with a transaction whose conditional UPDATE reserves or refuses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient, SQL } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type PostgresService, type Service, startPostgres, startRedis } from "../helpers/services.ts";
import { waitFor } from "../helpers/wait-for.ts";

let redis: Service;
let postgres: PostgresService;
const startMs: Record<string, number> = {};

beforeAll(async () => {
  const timed = async <T>(name: string, start: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const service = await start();
    startMs[name] = Math.round(performance.now() - t0);
    return service;
  };
  [redis, postgres] = await Promise.all([timed("redis", () => startRedis()), timed("postgres", () => startPostgres())]);
  console.log(`services started: redis ${startMs.redis} ms, postgres ${startMs.postgres} ms`);
});

afterAll(async () => {
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

describe("redis-server", () => {
  test("SET, GET and a Lua script that takes a slot only while under a limit, atomically", async () => {
    const client = new RedisClient(redis.url);
    try {
      await client.set("greeting", "hello");
      expect(await client.get("greeting")).toBe("hello");
      // The shape of a shared limiter: read, compare and write in one server-side step.
      const take = "local n = tonumber(redis.call('GET', KEYS[1]) or '0') if n >= tonumber(ARGV[1]) then return -1 end return redis.call('INCR', KEYS[1])";
      const answers = await Promise.all(Array.from({ length: 25 }, () => client.eval(take, 1, "slots", 10)));
      expect(answers.filter((a) => a === -1)).toHaveLength(15);
      expect(answers.filter((a) => a !== -1).sort((a, b) => Number(a) - Number(b))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await client.get("slots")).toBe("10");
    } finally {
      client.close();
    }
  });

  test("listens on loopback only, keeps nothing on disk and wants its password", async () => {
    const client = new RedisClient(redis.url);
    try {
      const config = (name: string) => client.send("CONFIG", ["GET", name]) as Promise<Record<string, string> | string[]>;
      const value = async (name: string) => {
        const r = await config(name);
        return Array.isArray(r) ? r[1] : r[name];
      };
      expect(await value("bind")).toBe("127.0.0.1");
      expect(await value("save")).toBe("");
      expect(await value("appendonly")).toBe("no");
    } finally {
      client.close();
    }
    // It asks for the password in its URL: a client without one is refused.
    const anonymous = new RedisClient(redis.url.replace(`:${redis.password}@`, ""), { autoReconnect: false, connectionTimeout: 2000 });
    try {
      await expect(anonymous.get("greeting")).rejects.toThrow(/NOAUTH|auth/i);
    } finally {
      anonymous.close();
    }
  });
});

describe("postgres", () => {
  test("a transaction with a conditional UPDATE: a reservation succeeds while the balance covers it, never below zero", async () => {
    const sql = new SQL({ url: postgres.url, max: 8 });
    try {
      await sql`CREATE TABLE balances (project text PRIMARY KEY, micros bigint NOT NULL CHECK (micros >= 0))`;
      await sql`CREATE TABLE ledger (request_id text PRIMARY KEY, project text NOT NULL, micros bigint NOT NULL)`;
      await sql`INSERT INTO balances VALUES ('p1', 1000)`;
      const reserve = (requestId: string, micros: number) => sql.begin(async (tx) => {
        const rows = await tx`UPDATE balances SET micros = micros - ${micros} WHERE project = 'p1' AND micros >= ${micros} RETURNING micros`;
        if (rows.length === 0) return false;
        await tx`INSERT INTO ledger VALUES (${requestId}, 'p1', ${micros})`;
        return true;
      });
      const served = await Promise.all(Array.from({ length: 30 }, (_, i) => reserve(`r${i}`, 100)));
      expect(served.filter(Boolean)).toHaveLength(10);
      const [balance] = await sql`SELECT micros FROM balances WHERE project = 'p1'`;
      expect(Number(balance.micros)).toBe(0);
      const [ledger] = await sql`SELECT count(*)::int AS n, sum(micros)::int AS total FROM ledger`;
      expect(ledger).toEqual({ n: 10, total: 1000 });
      // A failed step rolls the whole transaction back: the ledger row does not outlive it.
      await sql`UPDATE balances SET micros = 100 WHERE project = 'p1'`;
      await expect(reserve(`r${served.indexOf(true)}`, 100)).rejects.toThrow(/duplicate key|unique/i);
      const [after] = await sql`SELECT micros FROM balances WHERE project = 'p1'`;
      expect(Number(after.micros)).toBe(100);
    } finally {
      await sql.close();
    }
  });

  test("a wrong password is refused: the cluster checks credentials over TCP", async () => {
    const wrong = new SQL({ url: postgres.url.replace(postgres.password, "not-the-password"), max: 1, connectionTimeout: 5 });
    try {
      await expect(wrong`SELECT 1`).rejects.toThrow(/password/i);
    } finally {
      await wrong.close({ timeout: 0 });
    }
  });
});

/** A plain bun process that starts the services and prints them, then waits to be killed. */
async function childWithServices(which: "redis" | "both") {
  const helper = join(import.meta.dir, "../helpers/services.ts");
  const code = `import { startPostgres, startRedis } from ${JSON.stringify(helper)};
    const started = await Promise.all([startRedis(), ${which === "both" ? "startPostgres()" : "null"}]);
    console.log(JSON.stringify(started.filter(Boolean).map((s) => ({ dir: s.dir, port: s.port }))));
    setInterval(() => {}, 1000);`;
  const proc = Bun.spawn(["bun", "-e", code], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the child exited ${await proc.exited}: ${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  return { proc, services: JSON.parse(out) as Array<{ dir: string; port: number }> };
}

const portOpen = (port: number) => Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then((s) => (s.end(), true), () => false);

describe("stop", () => {
  test("SIGTERM to the test process stops both servers and removes their directories", async () => {
    const { proc, services } = await childWithServices("both");
    expect(await Promise.all(services.map((s) => portOpen(s.port)))).toEqual([true, true]);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    expect(services.map((s) => existsSync(s.dir))).toEqual([false, false]);
    expect(await Promise.all(services.map((s) => portOpen(s.port)))).toEqual([false, false]);
  });

  test("a test process killed outright (SIGKILL) still leaves no server behind: the watchdog stops it", async () => {
    const { proc, services } = await childWithServices("redis");
    proc.kill("SIGKILL");
    await proc.exited;
    await waitFor(() => !existsSync(services[0]!.dir), { timeoutMs: 20_000, what: "the watchdog to remove the redis directory" });
    // The kernel closes a killed server's socket a moment after the kill.
    await waitFor(async () => !(await portOpen(services[0]!.port)), { timeoutMs: 10_000, what: "the killed redis-server's port to close" });
  });

  test("stop() stops the servers and removes their directories; a second stop() is a no-op", async () => {
    await Promise.all([redis.stop(), postgres.stop()]);
    expect([existsSync(redis.dir), existsSync(postgres.dir)]).toEqual([false, false]);
    expect(await Promise.all([portOpen(redis.port), portOpen(postgres.port)])).toEqual([false, false]);
    await Promise.all([redis.stop(), postgres.stop()]);
  });
});
