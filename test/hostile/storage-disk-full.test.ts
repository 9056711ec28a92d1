// Disk full (issue 14, docs/availability.md "Storage"): on a small tmpfs data dir filled to the
// last byte, no request is answered 200 without its log row and (live key, prepaid project) its
// ledger charge; refused requests answer 503 in the envelope; reads still answer; after a stop with
// the disk still full, space returning and a restart, every 200 has its row and charge; and gw
// recovers by itself when space returns. Needs root for `mount -t tmpfs`; skipped (said) otherwise.
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { RESERVE_FILE } from "../../src/store/storage-health.ts";
import { createProject } from "../../src/admin/projects.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { ADMIN_TOKEN, get, post } from "../helpers/test-gw.ts";

const mountPoint = mkdtempSync(join(tmpdir(), "gw-diskfull-"));
const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mountPoint]).exitCode === 0;
if (!mounted) console.warn(`storage-disk-full: skipped, cannot mount a tmpfs at ${mountPoint} (needs root)`);
const dataDir = join(mountPoint, "data");
const filler = join(mountPoint, "filler");

afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", "-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes zeros until the filesystem refuses one more byte. */
function fillDisk(): void {
  const fd = openSync(filler, "a");
  for (const size of [1 << 20, 1 << 12, 1]) {
    const chunk = new Uint8Array(size);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOSPC") throw err;
    }
  }
  closeSync(fd);
}

const env = (upstream: ScriptedUpstream) => ({
  GW_ADMIN_TOKEN: ADMIN_TOKEN, OPENAI_API_KEY: "sk-diskfull-000000", OPENAI_BASE_URL: upstream.url,
  GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "4", GW_TEST_TRACES_PER_MIN: "1000",
});

function start(upstream: ScriptedUpstream): RunningServer {
  const config = loadConfig({ port: "0", data: dataDir }, env(upstream));
  const deps = buildDeps(config, { logger: createLogger(process.env.GW_TEST_LOG_LEVEL ?? "silent") });
  return startServer(config, { deps, quiet: true });
}

const chat = (gw: RunningServer, key: string, i: number) =>
  post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: `disk full ${i}` }] }, { "x-gw-cache": "off" });

async function expect503(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get("x-gw-api-version")).toBeTruthy();
  const body = (await res.json()) as { error: { code: string; type: string; category: string; request_id: string } };
  expect(body.error.code).toBe("service_unavailable");
  expect(body.error.request_id).toBe(res.headers.get("x-gw-request-id")!);
}

describe.skipIf(!mounted)("disk full: fail closed, nothing acknowledged is lost", () => {
  test("200s keep their rows and charges through a full disk, a stop and a restart; gw recovers by itself", async () => {
    mkdirSync(dataDir, { recursive: true });
    const upstream = await startScriptedUpstream({});
    let gw = start(upstream);
    const projectId = createProject(gw.deps.repos.projects, { name: "free" }).id;
    const testKey = issueKey(gw.deps.repos.apiKeys, { projectId, scopes: ["chat", "embeddings", "models", "requests"], mode: "test" }).secret;
    const created = await fetch(`${gw.url}/admin/projects`, {
      method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "prepaid", billing: { mode: "prepaid" } }),
    });
    const paid = ((await created.json()) as { id: string }).id;
    await fetch(`${gw.url}/admin/projects/${paid}/credits`, {
      method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ amount: 100 }),
    });
    const liveKey = issueKey(gw.deps.repos.apiKeys, { projectId: paid, scopes: null, mode: "live" }).secret;
    expect(existsSync(join(dataDir, RESERVE_FILE))).toBe(true);
    expect(gw.deps.storage.healthy).toBe(true);

    const answered = { test: [] as string[], live: [] as string[] };
    let refused = 0;
    const send = async (i: number) => {
      const live = i % 2 === 1;
      const res = await chat(gw, live ? liveKey : testKey, i);
      if (res.status === 200) return void (live ? answered.live : answered.test).push(res.headers.get("x-gw-request-id")!);
      await expect503(res);
      refused++;
    };
    await send(0);
    await send(1);

    fillDisk();
    // A burst in flight as the disk fills: whatever is answered 200 must be recorded, then requests
    // until gw has failed closed and refused a few (bounded: rows do not fit for long).
    await Promise.all(Array.from({ length: 20 }, (_, i) => send(2 + i)));
    for (let i = 22; i < 400 && refused < 6; i++) await send(i);
    expect(refused).toBeGreaterThanOrEqual(6);
    expect(gw.deps.storage.healthy).toBe(false);
    expect(gw.deps.storage.reason).toBeTruthy();
    // The reserve made room: every queued row and charge is written, though the disk is full.
    expect(existsSync(join(dataDir, RESERVE_FILE))).toBe(false);
    await gw.deps.logWriter.drain();
    await gw.deps.billing.drain();
    // Light requests and reads still answer while gw refuses to serve.
    expect((await get(`${gw.url}/models`, testKey)).status).toBe(200);
    expect((await get(`${gw.url}/requests?limit=1`, testKey)).status).toBe(200);
    expect((await get(`${gw.url}/metrics`, testKey)).status).toBe(200);
    const embed = await post(`${gw.url}/embeddings`, testKey, { model: "openai/text-embedding-3-small", input: "x" });
    await expect503(embed);
    expect(embed.headers.get("retry-after")).toBe("5");
    // The refusals reached no upstream: one call per 200, nothing else.
    expect(upstream.calls.filter((c) => c.path.endsWith("/chat/completions")).length).toBe(answered.live.length);

    // A stop with the disk still full, then space returns and gw starts again.
    await gw.stop();
    rmSync(filler);
    gw = start(upstream);
    expect(gw.deps.storage.healthy).toBe(true);
    expect(answered.test.length + answered.live.length).toBeGreaterThanOrEqual(2);
    for (const id of answered.test) expect(gw.deps.repos.requests.get(projectId, id)?.status).toBe(200);
    for (const id of answered.live) expect(gw.deps.repos.requests.get(paid, id)?.status).toBe(200);
    const charged = gw.deps.db.query<{ request_id: string }, [string]>("SELECT request_id FROM ledger WHERE project_id = ? AND kind = 'charge'").all(paid);
    expect(new Set(charged.map((c) => c.request_id))).toEqual(new Set(answered.live));
    expect(gw.deps.repos.ledger.openHoldCount()).toBe(0);

    // Recovery without a restart: full again, refused, space back, acknowledged again.
    fillDisk();
    refused = 0;
    for (let i = 1000; i < 1400 && refused < 2; i++) await send(i);
    expect(refused).toBe(2);
    rmSync(filler);
    await gw.deps.storage.whenHealthy();
    expect((await chat(gw, testKey, 2000)).status).toBe(200);
    await gw.stop();
    await upstream.stop();
  });
});
