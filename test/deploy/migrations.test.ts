// Upgrades (docs/deploy.md "Upgrades"): `gw serve` logs one line per migration it applies and none
// on a database already current; a database migrated by a newer gw is refused before anything is
// written, with a message that says what to do, and a non-zero exit.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_FILE, openDatabase } from "../../src/store/db.ts";
import { MIGRATIONS, SCHEMA_VERSION, SchemaTooNew, migrate, takeAppliedMigrations } from "../../src/store/migrate.ts";
import { envFor, freePort, killAll, ROOT, Served } from "../helpers/served.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-migrate-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await killAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Line = { msg?: string; migration?: number; name?: string; ms?: number };
const migrated = (stdout: string): Line[] =>
  stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Line).filter((l) => l.msg === "database migrated");

async function serveOnce(dir: string): Promise<Line[]> {
  const gw = new Served(join(dir, "data"), { env: { GW_LOG_LEVEL: "info", GW_SEMANTIC_EMBEDDER: "off" } });
  await gw.waitFor(/"msg":"gw listening"/, 60_000);
  expect(await gw.terminate()).toBe(0);
  return migrated(gw.stdout);
}

describe("a log line per applied migration", () => {
  test("a new data directory: one line per migration, in order, with its name; a restart applies none", async () => {
    const dir = tempDir();
    const first = await serveOnce(dir);
    expect(first.map((l) => l.migration)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(first.map((l) => l.name)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(first[0]!.name).toBe("001_init");
    for (const l of first) expect(typeof l.ms).toBe("number");
    expect(await serveOnce(dir)).toEqual([]);
  });

  test("an older database gets only the migrations it lacks", () => {
    const dir = tempDir();
    const db = new Database(join(dir, DB_FILE), { create: true, strict: true });
    db.run("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const m of MIGRATIONS.filter((x) => x.version <= 10)) {
      db.run(m.sql);
      db.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [m.version, 1]);
    }
    expect(migrate(db)).toBe(MIGRATIONS.length - 10);
    expect(takeAppliedMigrations(db.filename).map((m) => m.version)).toEqual(MIGRATIONS.filter((m) => m.version > 10).map((m) => m.version));
    // Taken once: the next start's log does not repeat them.
    expect(takeAppliedMigrations(db.filename)).toEqual([]);
    db.close();
  });
});

describe("a database newer than this gw", () => {
  function newerDir(): string {
    const dir = tempDir();
    const db = openDatabase(dir);
    db.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [SCHEMA_VERSION + 1, 1]);
    db.close();
    return dir;
  }

  test("migrate refuses it, naming the file and both versions, and changes nothing", () => {
    const dir = newerDir();
    const db = new Database(join(dir, DB_FILE), { strict: true });
    try {
      expect(() => migrate(db)).toThrow(SchemaTooNew);
      expect(() => migrate(db)).toThrow(`has schema version ${SCHEMA_VERSION + 1}, newer than this gw knows (${SCHEMA_VERSION})`);
      expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM schema_migrations").get()!.n).toBe(MIGRATIONS.length + 1);
    } finally {
      db.close();
    }
  });

  test("gw serve exits non-zero with the message before listening, and the directory is not locked after", async () => {
    const dir = newerDir();
    const run = () => {
      const proc = Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(freePort()), "--data", dir], {
        cwd: ROOT, env: envFor(dir, { GW_LOG_LEVEL: "info" }), stdout: "pipe", stderr: "pipe",
      });
      return Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    };
    const [stdout, stderr, code] = await run();
    expect(code).toBe(1);
    expect(stderr).toContain(`gw: The database ${join(dir, DB_FILE)} has schema version ${SCHEMA_VERSION + 1}, newer than this gw knows`);
    expect(stderr).toContain('docs/deploy.md "Upgrades"');
    expect(stdout).not.toContain("gw listening");
    // The lock was let go: a second try fails the same way, not with "in use".
    const again = await run();
    expect(again[1]).toContain("newer than this gw knows");
  });
});
