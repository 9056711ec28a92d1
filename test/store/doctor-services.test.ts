// `gw doctor` with GW_DATABASE_URL and GW_REDIS_URL (docs/scale-out.md "gw doctor"): each is reached
// within a bounded time-out and reported reachable with its version, or unreachable with why, against
// the real servers of test/helpers/services.ts, a closed port and a port that accepts but never answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { rmSync } from "node:fs";
import { SERVICE_PROBE_TIMEOUT_MS } from "../../src/doctor.ts";
import { probePostgres, probeRedis } from "../../src/store/service-probes.ts";
import { runGw, tempDir } from "../cli/run-gw.ts";
import { type PostgresService, type Service, startPostgres, startRedis } from "../helpers/services.ts";

let redis: Service;
let postgres: PostgresService;
/** Accepts connections and never says a word: a server that hangs. */
let silent: TCPSocketListener<undefined>;
const held: Socket<undefined>[] = [];
let closedPort: number;
const cwd = tempDir("gw-doctor-services-");

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void held.push(s), data() {} } });
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  closedPort = probe.port;
  probe.stop(true);
});

afterAll(async () => {
  for (const s of held) s.end();
  silent?.stop(true);
  await Promise.all([redis?.stop(), postgres?.stop()]);
  rmSync(cwd, { recursive: true, force: true });
});

type Report = { ok: boolean; checks: Record<string, { ok: boolean; detail: Record<string, unknown> }> };

describe("gw doctor through the command line", () => {
  test("both reachable: the server versions, exit 0, no credentials printed", async () => {
    const r = await runGw(["doctor"], { cwd, env: { GW_DATABASE_URL: postgres.url, GW_REDIS_URL: redis.url } });
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.postgres).toMatchObject({ ok: true, detail: { reachable: true, target: `127.0.0.1:${postgres.port}/gw_test` } });
    expect(report.checks.postgres!.detail.server).toMatch(/^PostgreSQL 15\.\d+/);
    expect(report.checks.redis).toMatchObject({ ok: true, detail: { reachable: true, target: `127.0.0.1:${redis.port}` } });
    expect(report.checks.redis!.detail.server).toMatch(/^Redis \d+\.\d+\.\d+$/);
    expect(r.code).toBe(report.ok ? 0 : 1);
    expect(report.ok).toBe(Object.values(report.checks).every((c) => c.ok));
    expect(r.stdout + r.stderr).not.toContain(postgres.password);
    expect(r.stdout + r.stderr).not.toContain(redis.password);
  }, 120_000);

  test("a closed port and a silent one: unreachable with why, within the time-out, exit 1, no password printed", async () => {
    const password = "doctor-never-prints-this";
    const r = await runGw(["doctor"], {
      cwd,
      env: { GW_DATABASE_URL: `postgres://gw:${password}@127.0.0.1:${closedPort}/gw`, GW_REDIS_URL: `redis://:${password}@127.0.0.1:${silent.port}` },
    });
    const report = JSON.parse(r.stdout) as Report;
    expect(r.code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.checks.postgres).toMatchObject({ ok: false, detail: { reachable: false, target: `127.0.0.1:${closedPort}/gw` } });
    expect(report.checks.postgres!.detail.error).toMatch(/refused|connect|closed/i);
    expect(report.checks.redis).toMatchObject({ ok: false, detail: { reachable: false, target: `127.0.0.1:${silent.port}` } });
    expect(report.checks.redis!.detail.error).toMatch(/timed out|time-?out|no answer/i);
    expect(r.stdout + r.stderr).not.toContain(password);
  }, 120_000);

  test("a malformed variable fails its check with the variable's message, the others still run", async () => {
    const r = await runGw(["doctor"], { cwd, env: { GW_DATABASE_URL: "mysql://gw:hidden-pw@db/gw", GW_REDIS_URL: redis.url } });
    const { checks } = JSON.parse(r.stdout) as { checks: Record<string, { ok: boolean; detail: unknown }> };
    expect(checks.postgres).toEqual({ ok: false, detail: 'Invalid GW_DATABASE_URL "mysql://gw:***@db/gw": expected a postgres:// or postgresql:// URL such as postgres://gw:PASSWORD@db.internal:5432/gw.' });
    expect(checks.redis?.ok).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("hidden-pw");
  }, 120_000);
});

describe("the probes", () => {
  test("a wrong password: unreachable with the server's refusal, the password blanked", async () => {
    const wrongPg = await probePostgres(postgres.url.replace(postgres.password, "wrong-pw-123"), SERVICE_PROBE_TIMEOUT_MS);
    expect(wrongPg.detail).toMatchObject({ reachable: false });
    expect(wrongPg.detail.error).toMatch(/password/i);
    expect(JSON.stringify(wrongPg)).not.toContain("wrong-pw-123");
    const wrongRedis = await probeRedis(redis.url.replace(redis.password, "wrong-pw-123"), SERVICE_PROBE_TIMEOUT_MS);
    expect(wrongRedis.detail.reachable).toBe(false);
    expect(wrongRedis.detail.error).toMatch(/WRONGPASS|password/i);
    expect(JSON.stringify(wrongRedis)).not.toContain("wrong-pw-123");
  });

  test("a server that accepts and never answers is given up on at the time-out", async () => {
    const [pg, rd] = await Promise.all([
      probePostgres(`postgres://gw:x@127.0.0.1:${silent.port}/gw`, 300),
      probeRedis(`redis://127.0.0.1:${silent.port}`, 300),
    ]);
    for (const result of [pg, rd]) {
      expect(result).toMatchObject({ ok: false, detail: { reachable: false } });
      expect(result.detail.error).toMatch(/timed out|time-?out|no answer/i);
    }
  });

  test("reachable: the version and the target, no user or password", async () => {
    const pg = await probePostgres(postgres.url, SERVICE_PROBE_TIMEOUT_MS);
    expect(pg.ok).toBe(true);
    expect(pg.detail.target).toBe(`127.0.0.1:${postgres.port}/gw_test`);
    expect(JSON.stringify(pg)).not.toContain(postgres.user + ":");
  });
});
