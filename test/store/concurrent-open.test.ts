// Several processes opening one new data directory at once (the server, the CLI) must all succeed:
// no "database is locked", no migration applied twice.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/store/migrate.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-race-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('store: concurrent first open (docs/running.md "First start")', () => {
  test("six CLI processes creating projects in a new data directory at once all succeed", async () => {
    const procs = Array.from({ length: 6 }, (_, i) =>
      Bun.spawn(["bun", "run", "src/main.ts", "projects", "create", "--name", `p${i}`, "--data", dir], { stdout: "pipe", stderr: "pipe" }),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    const stderr = await Promise.all(procs.map((p) => new Response(p.stderr).text()));
    expect(stderr.join("")).toBe("");
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    const db = new Database(join(dir, "gw.sqlite"), { readonly: true });
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM projects").get()?.n).toBe(6);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM schema_migrations").get()?.n).toBe(MIGRATIONS.length);
    db.close();
  });
});
