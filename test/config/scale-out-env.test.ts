// GW_DATABASE_URL and GW_REDIS_URL (docs/scale-out.md "Configuration"): a malformed one stops start-up
// naming the variable without its password; one alone, or both without GW_SECRET_KEY, refuse to
// start; neither is single-node mode, both (with the secret key) the multi-instance mode.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config/env.ts";
import { entries, runGw, tempDir } from "../cli/run-gw.ts";

const SECRET = "hunter2-s3cret";
const PG = `postgres://gw:${SECRET}@db.internal:5432/gw`;
const REDIS = `redis://:${SECRET}@redis.internal:6379/0`;

const errorOf = (env: Record<string, string>): string => {
  try {
    loadConfig({}, env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
};

describe("malformed URLs name the variable and never print the password", () => {
  test.each([
    [{ GW_DATABASE_URL: `mysql://gw:${SECRET}@db/gw` }, 'Invalid GW_DATABASE_URL "mysql://gw:***@db/gw": expected a postgres:// or postgresql:// URL such as postgres://gw:PASSWORD@db.internal:5432/gw.'],
    [{ GW_DATABASE_URL: "db.internal:5432" }, 'Invalid GW_DATABASE_URL "db.internal:5432": expected a postgres:// or postgresql:// URL such as postgres://gw:PASSWORD@db.internal:5432/gw.'],
    [{ GW_DATABASE_URL: `postgres://gw:${SECRET}@db.internal:99999/gw` }, 'Invalid GW_DATABASE_URL "postgres://gw:***@db.internal:99999/gw": expected a postgres:// or postgresql:// URL such as postgres://gw:PASSWORD@db.internal:5432/gw.'],
    [{ GW_DATABASE_URL: `postgres://db.internal/gw/extra?sslmode=require&password=${SECRET}` }, 'Invalid GW_DATABASE_URL "postgres://db.internal/gw/extra?sslmode=require&password=***": expected a postgres:// or postgresql:// URL such as postgres://gw:PASSWORD@db.internal:5432/gw.'],
    [{ GW_DATABASE_URL: `gw:${SECRET}@db.internal/gw` }, 'Invalid GW_DATABASE_URL "***@db.internal/gw": expected a postgres:// or postgresql:// URL such as postgres://gw:PASSWORD@db.internal:5432/gw.'],
    [{ GW_REDIS_URL: `http://:${SECRET}@redis.internal:6379` }, 'Invalid GW_REDIS_URL "http://:***@redis.internal:6379": expected a redis:// or rediss:// URL such as redis://:PASSWORD@redis.internal:6379/0.'],
    [{ GW_REDIS_URL: `redis://:${SECRET}@redis.internal:6379/zero` }, 'Invalid GW_REDIS_URL "redis://:***@redis.internal:6379/zero": expected a redis:// or rediss:// URL such as redis://:PASSWORD@redis.internal:6379/0.'],
    [{ GW_REDIS_URL: `redis://:${SECRET}@:6379` }, 'Invalid GW_REDIS_URL "redis://:***@:6379": expected a redis:// or rediss:// URL such as redis://:PASSWORD@redis.internal:6379/0.'],
  ])("%p", (env, message) => {
    const error = errorOf(env);
    expect(error).toBe(message);
    expect(error).not.toContain(SECRET);
  });
});

describe("the modes", () => {
  test("neither set, or set empty: single-node, the configuration as before", () => {
    expect(loadConfig({}, { GW_DATABASE_URL: "", GW_REDIS_URL: "" })).toEqual(loadConfig({}, {}));
  });

  test("exactly one set refuses, saying what would silently be per-instance", () => {
    expect(errorOf({ GW_DATABASE_URL: PG })).toMatch(/^GW_DATABASE_URL is set but GW_REDIS_URL is not: rate limits, .* would stay in this process, so each instance would allow the full limit/);
    expect(errorOf({ GW_REDIS_URL: REDIS })).toMatch(/^GW_REDIS_URL is set but GW_DATABASE_URL is not: keys, credits .* would stay in this instance's SQLite file/);
  });

  test("both set, valid in every accepted spelling: the multi-instance mode, which needs GW_SECRET_KEY", () => {
    for (const [db, redis] of [[PG, REDIS], [PG.replace("postgres:", "postgresql:"), REDIS.replace("redis:", "rediss:")]] as const) {
      const error = errorOf({ GW_DATABASE_URL: db, GW_REDIS_URL: redis });
      expect(error).toStartWith("GW_DATABASE_URL and GW_REDIS_URL ask for the multi-instance mode, which needs GW_SECRET_KEY set to the same value on every instance");
      expect(error).not.toContain(SECRET);
      const config = loadConfig({}, { GW_DATABASE_URL: db, GW_REDIS_URL: redis, GW_SECRET_KEY: "k".repeat(32) });
      expect({ mode: config.stateMode, db: config.databaseUrl, redis: config.redisUrl }).toEqual({ mode: "multi-instance", db, redis });
    }
    expect(loadConfig({}, {}).stateMode).toBe("single-node");
  });

  test("GW_REDIS_FAILURE: open by default, closed on request, anything else refused by name", () => {
    expect(loadConfig({}, {}).redisFailure).toBe("open");
    expect(loadConfig({}, { GW_REDIS_FAILURE: "closed" }).redisFailure).toBe("closed");
    expect(errorOf({ GW_REDIS_FAILURE: "shut" })).toStartWith('Invalid GW_REDIS_FAILURE "shut": expected open');
  });

  test("a near miss of either name is reported as a typo", () => {
    expect(loadConfig({}, { GW_REDIS_ULR: REDIS }).misspelledVariables).toEqual(["GW_REDIS_ULR (did you mean GW_REDIS_URL?)"]);
  });
});

describe("through the real command line", () => {
  const cwd = tempDir("gw-scale-out-env-");
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  test("serve, config check and an admin command exit 1 with the message, open nothing and print no password", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ GW_DATABASE_URL: PG }, /^gw: GW_DATABASE_URL is set but GW_REDIS_URL is not/],
      [{ GW_REDIS_URL: REDIS }, /^gw: GW_REDIS_URL is set but GW_DATABASE_URL is not/],
      [{ GW_DATABASE_URL: PG, GW_REDIS_URL: REDIS }, /^gw: GW_DATABASE_URL and GW_REDIS_URL ask for the multi-instance mode, which needs GW_SECRET_KEY/],
      [{ GW_DATABASE_URL: `mysql://gw:${SECRET}@db/gw` }, /^gw: Invalid GW_DATABASE_URL "mysql:\/\/gw:\*\*\*@db\/gw"/],
    ];
    for (const [index, [env, message]] of cases.entries()) {
      // Every case through serve; config check and an admin command load the configuration the same way.
      const commands = index === 2 ? [["serve", "--port", "0"], ["config", "check"], ["projects", "list"]] : [["serve", "--port", "0"]];
      const runs = await Promise.all(commands.map((args) => runGw(args, { cwd, env })));
      for (const [i, r] of runs.entries()) {
        expect({ args: commands[i], env, code: r.code, stdout: r.stdout }).toEqual({ args: commands[i], env, code: 1, stdout: "" });
        expect(r.stderr).toMatch(message);
        expect(r.stderr).not.toContain(SECRET);
      }
    }
    expect(entries(cwd)).toEqual([]);
  });

  test("both set empty: config check is ok as before", async () => {
    expect(await runGw(["config", "check"], { cwd, env: { GW_DATABASE_URL: "", GW_REDIS_URL: "" } })).toEqual({ code: 0, stdout: "ok\n", stderr: "" });
  });
});
