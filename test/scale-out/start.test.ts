// The multi-instance mode's start and stop (docs/scale-out.md "Modes"): instances starting at once on
// one fresh PostgreSQL apply its migrations once between them, SIGTERM stops each cleanly, and an
// unreachable PostgreSQL stops start-up with a message, never a half-started server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PG_MIGRATIONS } from "../../src/store/postgres/migrate.ts";
import { MULTI_SECRET_KEY, startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";

let m: MultiGw;
beforeAll(async () => {
  m = await startMultiGw(0);
});
afterAll(() => m?.stop());

const migrated = (out: string) => out.split("\n").filter((l) => l.includes('"msg":"PostgreSQL migrated"')).length;

test("three instances started at once: PostgreSQL migrated exactly once, each healthy, each stops on SIGTERM", async () => {
  const started = await Promise.all([m.start(), m.start(), m.start()]);
  for (const i of started) expect((await fetch(`${i.origin}/healthz`)).status).toBe(200);
  // One instance applied every migration; the others queued on the advisory lock and found them applied.
  expect(started.map((i) => migrated(i.output())).sort()).toEqual([0, 0, PG_MIGRATIONS.length]);
  const sql = new SQL(m.pg.url);
  try {
    const [row] = await sql`SELECT count(*)::int AS n FROM schema_migrations`;
    expect(row.n).toBe(PG_MIGRATIONS.length);
  } finally {
    await sql.close();
  }
  expect(await Promise.all(started.map((i) => i.stop()))).toEqual([0, 0, 0]);
});

test("PostgreSQL unreachable: start-up exits 1 naming it, and prints no password", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-multi-down-"));
  try {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const proc = Bun.spawn(["bun", resolve(import.meta.dir, "../../src/main.ts"), "serve", "--port", "0", "--data", join(dir, "data")], {
      cwd: dir,
      env: { ...m.env, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GW_DATABASE_URL: `postgres://gw:s3cret-pw@127.0.0.1:${port}/gw`, GW_SECRET_KEY: MULTI_SECRET_KEY },
      stdout: "pipe", stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(1);
    expect(stderr).toStartWith("gw: multi-instance start-up failed:");
    expect(stderr).not.toContain("s3cret-pw");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
