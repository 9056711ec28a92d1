// Rate-limit state survives a restart (issue 15 item 8, docs/rate-limits.md "Restarts"): a caller
// that used its allowance is still refused by the next process on the same data directory, and
// a caller that did not is not; a damaged state file starts empty instead of failing start-up.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueKey } from "../../src/auth/api-keys.ts";
import { createProject } from "../../src/admin/projects.ts";
import { RATE_LIMIT_FILE } from "../../src/billing/rate-limit-state.ts";
import { RateLimiter } from "../../src/billing/rate-limit.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { ADMIN_TOKEN, post } from "../helpers/test-gw.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function start(dataDir: string) {
  const config = loadConfig({ port: "0", data: dataDir }, { GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1" });
  return startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
}
const chat = (url: string, key: string) => post(`${url}/chat/completions`, key, { messages: [{ role: "user", content: "hello there" }] });

test("a used allowance is still used after a restart; an unused one is still full", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-rl-restart-"));
  dirs.push(dataDir);
  let server = start(dataDir);
  const limited = createProject(server.deps.repos.projects, { name: "limited" }).id;
  const other = createProject(server.deps.repos.projects, { name: "other" }).id;
  for (const id of [limited, other]) {
    const res = await fetch(`${server.url}/admin/projects/${id}`, {
      method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ policy: { rate_limits: { rpm: 2 } } }),
    });
    expect(res.status).toBe(200);
  }
  const key = issueKey(server.deps.repos.apiKeys, { projectId: limited, scopes: null, mode: "test" }).secret;
  const otherKey = issueKey(server.deps.repos.apiKeys, { projectId: other, scopes: null, mode: "test" }).secret;
  expect((await chat(server.url, key)).status).toBe(200);
  expect((await chat(server.url, key)).status).toBe(200);
  expect((await chat(server.url, key)).status).toBe(429);
  await server.stop();

  server = start(dataDir);
  try {
    const refused = await chat(server.url, key);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect((await chat(server.url, otherKey)).status).toBe(200);
  } finally {
    await server.stop();
  }
});

test("a damaged state file is ignored: the server starts with full allowances", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-rl-damaged-"));
  dirs.push(dataDir);
  writeFileSync(join(dataDir, RATE_LIMIT_FILE), "{not json");
  const server = start(dataDir);
  try {
    const res = await fetch(`${server.url.replace(/\/v1$/, "")}/readyz`);
    expect(res.status).toBe(200);
  } finally {
    await server.stop();
  }
});

test("saved cells carry their remaining wait across clocks; full ones are not saved", () => {
  let clock = 1_000;
  const a = new RateLimiter({ now: () => clock });
  const level = { id: "p1", name: "project", limits: { rpm: 1 } };
  expect(a.admit("r1", [level], { bound: 1 }).ok).toBe(true);
  const saved = a.saved(50_000);
  expect(saved).toHaveLength(1);
  expect(saved[0]!.reqTat).toBe(50_000 + 60_000);
  // A process whose own clock starts elsewhere, 10 s later in epoch time.
  let other = 7;
  const b = new RateLimiter({ now: () => other });
  expect(b.restore(saved, 60_000)).toBe(1);
  expect(b.admit("r2", [level], { bound: 1 }).ok).toBe(false);
  other += 50_001;
  expect(b.admit("r3", [level], { bound: 1 }).ok).toBe(true);
  clock += 60_001;
  expect(a.saved(50_000 + 60_001)).toHaveLength(0);
});
