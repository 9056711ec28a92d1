// The gw command line and process lifecycle (docs/running.md "Command line", "First start"): offline project and key admin,
// first start on an empty data directory, graceful SIGTERM, restart on the same directory, and no
// request-log row lost to a shutdown.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/db.ts";
import { apiKeysRepo } from "../../../src/store/repos/api-keys.ts";
import { cli, cliJson, killAll, Served } from "../../helpers/served.ts";

const KEY_RE = /gw_test_[0-9a-z]{40}/;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "gw-cli-"));
  dirs.push(dir);
  return dir;
}

const chat = (url: string, key: string, content: string) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content }] }),
  });

async function requestIds(url: string, key: string): Promise<string[]> {
  const res = await fetch(`${url}/requests?limit=100`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ request_id: string }> }).data.map((e) => e.request_id);
}

afterAll(async () => {
  await killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('gw projects / keys from the command line (docs/running.md "Command line")', () => {
  const dir = tempDir();

  test("projects create, keys create (test and live), keys revoke print JSON", async () => {
    const project = await cliJson(dir, "projects", "create", "--name", "N");
    expect(project).toMatchObject({ object: "project", name: "N", plan: "pro", billing: { mode: "postpaid", balance: 0, credit_limit: null }, policy: {} });
    expect(project.id).toMatch(/^prj_[0-9a-z]+$/);

    const testKey = await cliJson(dir, "keys", "create", "--project", project.id as string, "--scopes", "chat,models", "--test");
    expect(testKey).toMatchObject({ object: "key", mode: "test", scopes: ["chat", "models"] });
    expect(testKey.key).toMatch(/^gw_test_[0-9a-z]{40}$/);
    expect(testKey.id).toMatch(/^key_[0-9a-z]+$/);

    const liveKey = await cliJson(dir, "keys", "create", "--project", project.id as string);
    expect(liveKey).toMatchObject({ mode: "live", scopes: ["chat", "embeddings", "models", "cache"] });
    expect(liveKey.key).toMatch(/^gw_live_[0-9a-z]{40}$/);

    expect(await cliJson(dir, "keys", "revoke", testKey.id as string)).toEqual({ object: "key", id: testKey.id, revoked: true });

    const db = openDatabase(dir);
    try {
      const keys = apiKeysRepo(db);
      expect(keys.get(testKey.id as string)?.revokedAt).not.toBeNull();
      expect(keys.get(liveKey.id as string)?.revokedAt).toBeNull();
      expect(keys.get(liveKey.id as string)?.projectId).toBe(project.id as string);
      // The CLI queues the key events; a running gw delivers them (docs/webhooks.md "Event types").
      const events = db.query<{ type: string; body: string }, [string]>("SELECT type, body FROM webhook_events WHERE project_id = ? ORDER BY id").all(project.id as string);
      expect(events.map((e) => e.type)).toEqual(["security.key_created", "security.key_created", "security.key_revoked"]);
      expect(events.some((e) => e.body.includes(testKey.key as string))).toBe(false);
    } finally {
      db.close();
    }
  });

  test("bad usage exits non-zero with a message on stderr and nothing on stdout", async () => {
    const project = await cliJson(dir, "projects", "create", "--name", "usage");
    const cases: Array<[string[], RegExp]> = [
      [["projects", "create"], /--name/],
      [["keys", "create", "--project", project.id as string, "--scopes", "chat,bogus"], /bogus/],
      [["keys", "create", "--project", "prj_nope"], /prj_nope/],
      [["keys", "create"], /--project/],
      [["keys", "revoke"], /KEY_ID/],
      [["keys", "revoke", "key_nope"], /key_nope/],
      [["frobnicate"], /frobnicate/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(dir, ...args)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      if (r.code === 0) throw new Error(`gw ${args.join(" ")} exited 0`);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
  });
});

describe('first start, SIGTERM, restart on the same data directory (docs/running.md "First start")', () => {
  test("the first start prints one test key once; it survives a restart, and so does the log", async () => {
    const dir = tempDir();
    const first = new Served(dir);
    const [testKey] = await first.waitFor(KEY_RE);
    await first.waitFor(new RegExp(`curl ${first.url.replace(/[.]/g, "\\.")}/chat/completions`));
    const projectId = (await first.waitFor(/default \((prj_[0-9a-z]+)\)/))[1]!;
    expect(first.stdout.match(new RegExp(KEY_RE.source, "g"))!.every((k) => k === testKey)).toBe(true);

    const answered = await chat(first.url, testKey, "Hello before the restart");
    expect(answered.status).toBe(200);
    const requestId = answered.headers.get("x-gw-request-id")!;
    expect(((await answered.json()) as { gw: { test: boolean } }).gw.test).toBe(true);
    expect(await first.terminate()).toBe(0);

    const reader = await cliJson(dir, "keys", "create", "--project", projectId, "--scopes", "requests", "--test");

    const second = new Served(dir);
    await second.waitUntilServing(testKey);
    expect(await requestIds(second.url, reader.key as string)).toEqual([requestId]);
    expect((await chat(second.url, testKey, "Hello after the restart")).status).toBe(200);
    expect(await second.terminate()).toBe(0);
    // Bootstrap ran once: nothing printed the second time, and still one project.
    expect(second.stdout).not.toMatch(/gw_test_/);
    expect(second.stdout).not.toMatch(/first start/);
    const db = openDatabase(dir);
    try {
      expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM projects").get()!.n).toBe(1);
      expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM requests").get()!.n).toBe(2);
    } finally {
      db.close();
    }
  });

  test("requests answered right before SIGTERM are in the log after a restart", async () => {
    const dir = tempDir();
    const first = new Served(dir);
    const [testKey] = await first.waitFor(KEY_RE);
    const projectId = (await first.waitFor(/default \((prj_[0-9a-z]+)\)/))[1]!;
    // Created while gw runs: the CLI and the server share the database.
    const reader = await cliJson(dir, "keys", "create", "--project", projectId, "--scopes", "requests", "--test");

    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => chat(first.url, testKey, `Question ${i}?`)));
    // SIGTERM at once, before the log queue's interval could flush on its own.
    const exitCode = first.terminate();
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const sent = responses.map((r) => r.headers.get("x-gw-request-id")!);
    expect(await exitCode).toBe(0);

    const second = new Served(dir);
    await second.waitUntilServing(testKey);
    const logged = await requestIds(second.url, reader.key as string);
    expect(logged).toHaveLength(20);
    expect([...logged].sort()).toEqual([...sent].sort());
    expect(await second.terminate()).toBe(0);
  });
});
