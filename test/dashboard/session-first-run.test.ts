// The first-run key (docs/running.md "First start"): it carries scope `requests`, the banner names
// the dashboard, and the key signs in to its project's dashboard.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapIfEmpty, firstRunBanner } from "../../src/bootstrap.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { ok } from "../helpers/admin-api.ts";

const dataDir = mkdtempSync(join(tmpdir(), "gw-first-run-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("the first-run key has scope requests, the banner prints the dashboard URL, and the key signs in", async () => {
  const config = loadConfig({ port: "0", data: dataDir }, { GW_STORAGE_RESERVE_MB: "1" });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  const boot = bootstrapIfEmpty(deps.repos);
  if (!boot) throw new Error("an empty data directory was not bootstrapped");
  expect(firstRunBanner(boot, "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/")).toContain("\nDashboard: http://127.0.0.1:8080/ (sign in with the key above)\n");
  const server = startServer(config, { deps, quiet: true });
  try {
    const res = await fetch(`${server.url.replace(/\/v1$/, "")}/dashboard/api/session`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: boot.testKey }),
    });
    const session = await ok(res);
    expect(session).toMatchObject({ role: "project", project_id: boot.projectId });
    expect(session.scopes).toEqual(["chat", "embeddings", "models", "cache", "requests"]);
  } finally {
    await server.stop();
  }
});
