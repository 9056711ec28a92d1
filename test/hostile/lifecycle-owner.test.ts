// One owner per port and per data directory, readiness, and restarts after kill -9 under load
// (docs/availability.md "One owner" and "Shutdown").
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/env.ts";
import { createApp } from "../../src/http/app.ts";
import { Lifecycle } from "../../src/http/lifecycle.ts";
import { startServer } from "../../src/server.ts";
import { DataDirInUse } from "../../src/store/data-dir-lock.ts";
import { cli, cliJson, freePort, killAll, ROOT, envFor, Served } from "../helpers/served.ts";
import { startTestGw } from "../helpers/test-gw.ts";

const KEY_RE = /gw_test_[0-9a-z]{40}/;
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "gw-owner-"));
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  await killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serveOnce(dataDir: string, port: number): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn(["bun", "run", "src/main.ts", "serve", "--port", String(port), "--data", dataDir], {
    cwd: ROOT, env: envFor(dataDir), stdin: "ignore", stdout: "pipe", stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr };
}

const chat = (url: string, key: string, content: string) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ messages: [{ role: "user", content }] }),
  });

describe("one owner per port and data directory", () => {
  test("gw serve on a port another program holds exits non-zero naming the port, and takes nothing", async () => {
    const holder = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("the holder") });
    try {
      const dir = tempDir();
      const { code, stderr } = await serveOnce(dir, holder.port!);
      expect(code).not.toBe(0);
      expect(stderr).toContain(`Port ${holder.port}`);
      expect(stderr).toContain("already in use");
      // The holder still answers every request: nothing shares its port.
      for (let i = 0; i < 5; i++) expect(await (await fetch(`http://127.0.0.1:${holder.port}/`)).text()).toBe("the holder");
    } finally {
      holder.stop(true);
    }
  });

  test("a second gw serve on a data directory in use exits non-zero naming it; offline CLI commands still work", async () => {
    const dir = tempDir();
    const first = new Served(dir);
    const [testKey] = await first.waitFor(KEY_RE);
    const projectId = (await first.waitFor(/default \((prj_[0-9a-z]+)\)/))[1]!;
    const second = await serveOnce(dir, freePort());
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(dir);
    expect(second.stderr).toContain("in use by another gw server");
    // The CLI admin commands work on the directory beside the running server.
    const key = await cliJson(dir, "keys", "create", "--project", projectId, "--test");
    expect(key.key).toMatch(KEY_RE);
    expect((await chat(first.url, testKey, "still mine")).status).toBe(200);
    expect(await first.terminate()).toBe(0);
    // Released at a clean stop: the directory can be served again.
    const again = new Served(dir);
    await again.waitUntilServing(testKey);
    expect(await again.terminate()).toBe(0);
  });

  test("in one process too: a second server on the same directory is refused before it listens", async () => {
    const gw = await startTestGw();
    try {
      const config = loadConfig({ port: "0", data: gw.dataDir }, {});
      expect(() => startServer(config, { quiet: true })).toThrow(DataDirInUse);
    } finally {
      await gw.stop();
    }
  });

  test("bad usage of serve does not leave a lock behind", async () => {
    const dir = tempDir();
    const bad = await cli(dir, "serve", "--port", "99999");
    expect(bad.code).not.toBe(0);
    const served = new Served(dir);
    await served.waitFor(KEY_RE);
    expect(await served.terminate()).toBe(0);
  });
});

describe("readiness", () => {
  test("/healthz and /readyz answer without a key; a draining gw is not ready and refuses new work in the envelope", async () => {
    const gw = await startTestGw();
    try {
      const base = gw.url.replace(/\/v1$/, "");
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get("x-gw-api-version")).toBe("2026-10-04");
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ready" });

      const lifecycle = new Lifecycle();
      const app = createApp(gw.deps, lifecycle);
      lifecycle.draining = true;
      const ready = await app.handle(new Request("http://localhost/readyz"));
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "unavailable", reasons: ["shutting down"] });
      const refused = await app.handle(new Request("http://localhost/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${gw.testKey}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
      }));
      expect(refused.status).toBe(503);
      expect(refused.headers.get("x-gw-api-version")).toBe("2026-10-04");
      expect(((await refused.json()) as { error: { code: string; type: string } }).error).toMatchObject({ code: "service_unavailable", type: "api_error" });
      // Reads still work while it drains.
      const models = await app.handle(new Request("http://localhost/v1/models", { headers: { authorization: `Bearer ${gw.testKey}` } }));
      expect(models.status).toBe(200);
    } finally {
      await gw.stop();
    }
  });
});

describe("kill -9 and restart under load", () => {
  test("20 cycles of load, SIGKILL and restart all start and serve", async () => {
    const dir = tempDir();
    let served = new Served(dir);
    const [testKey] = await served.waitFor(KEY_RE);
    const statuses = new Map<number, number>();
    for (let cycle = 0; cycle < 20; cycle++) {
      await served.waitUntilServing(testKey);
      // Load in flight when the process dies: requests started, some answered, some not.
      const load = Array.from({ length: 16 }, (_, i) => chat(served.url, testKey, `cycle ${cycle} question ${i}`).then((r) => r.status, () => 0));
      await load[0];
      await served.kill();
      for (const s of await Promise.all(load)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
      served = new Served(dir);
    }
    await served.waitUntilServing(testKey);
    expect((await chat(served.url, testKey, "after 20 kills")).status).toBe(200);
    expect(await served.terminate()).toBe(0);
    // Every answer that came back before a kill was a success; the rest were cut connections.
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 0)).toEqual([]);
  });
});
