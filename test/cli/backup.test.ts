// `gw backup DIR` (docs/running.md "Backup"): a consistent copy of the database taken while gw
// serves and writes, with secret.key beside it; refused into a directory that already holds one.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { killAll, Served } from "../helpers/served.ts";
import { entries, runGw, runGwJson, tempDir } from "./run-gw.ts";

const KEY_RE = /gw_test_[0-9a-z]{40}/;
const dirs: string[] = [];
const dir = (prefix: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterAll(async () => {
  await killAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const chat = (url: string, key: string, content: string) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content }] }),
  });

describe('gw backup (docs/running.md "Backup")', () => {
  test("while gw serves requests: the copy opens, is whole, and holds every row logged before it began", async () => {
    const data = dir("gw-backup-data-");
    const target = join(dir("gw-backup-target-"), "nested", "copy");
    const served = new Served(data);
    const [key] = await served.waitFor(KEY_RE);
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(served.url, key, `before ${i}`)));
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Read-your-writes: the list waits for queued rows, so all 20 are in the database now.
    const listed = await fetch(`${served.url}/requests?limit=100`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(20);

    // More requests in flight while the backup runs.
    const during = Promise.all(Array.from({ length: 40 }, (_, i) => chat(served.url, key, `during ${i}`)));
    const printed = await runGwJson<{ object: string; dir: string; files: Array<{ path: string; bytes: number }> }>(["backup", target, "--data", data], { cwd: data });
    expect((await during).every((r) => r.status === 200)).toBe(true);
    expect(printed.object).toBe("backup");
    expect(printed.dir).toBe(target);
    expect(printed.files.map((f) => f.path)).toEqual([join(target, "gw.sqlite"), join(target, "secret.key")]);
    for (const f of printed.files) expect(statSync(f.path).size).toBe(f.bytes);
    expect(entries(target)).toEqual(["gw.sqlite", "secret.key"]);
    expect(readFileSync(join(target, "secret.key"), "utf8")).toBe(readFileSync(join(data, "secret.key"), "utf8"));
    expect(statSync(join(target, "secret.key")).mode & 0o777).toBe(0o600);

    const copy = new Database(join(target, "gw.sqlite"), { readonly: true });
    try {
      expect(copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
      expect(copy.query<{ n: number }, []>("SELECT count(*) AS n FROM projects").get()?.n).toBe(1);
      expect(copy.query<{ n: number }, []>("SELECT count(*) AS n FROM api_keys").get()?.n).toBe(1);
      const logged = copy.query<{ n: number }, []>("SELECT count(*) AS n FROM requests").get()!.n;
      expect(logged).toBeGreaterThanOrEqual(20);
      expect(logged).toBeLessThanOrEqual(60);
    } finally {
      copy.close();
    }
    expect(await served.terminate()).toBe(0);

    // The copy is a data directory gw starts on: the same key answers.
    const restored = new Served(target);
    await restored.waitUntilServing(key);
    expect((await chat(restored.url, key, "after the restore")).status).toBe(200);
    expect(await restored.terminate()).toBe(0);
  });

  test("a directory that already holds a gw.sqlite is refused (exit 1) and left as it was", async () => {
    const data = dir("gw-backup-data2-");
    await runGwJson(["projects", "create", "--name", "p", "--data", data], { cwd: data });
    const target = dir("gw-backup-target2-");
    expect((await runGw(["backup", target, "--data", data], { cwd: data })).code).toBe(0);
    const before = statSync(join(target, "gw.sqlite")).mtimeMs;
    const again = await runGw(["backup", target, "--data", data], { cwd: data });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(statSync(join(target, "gw.sqlite")).mtimeMs).toBe(before);
  });

  test("a data directory without a database exits 1 and creates neither directory", async () => {
    const parent = dir("gw-backup-none-");
    const r = await runGw(["backup", join(parent, "out"), "--data", join(parent, "data")], { cwd: parent });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No database at .*nothing to back up/);
    expect(entries(parent)).toEqual([]);
  });
});
