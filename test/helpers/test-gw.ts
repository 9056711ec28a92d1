// Starts a real gw on 127.0.0.1:0 over a fresh SQLite data dir, with helpers to mint keys.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueKey } from "../../src/auth/api-keys.ts";
import type { KeyScope } from "../../src/config/constants.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { type Deps } from "../../src/pipeline/deps.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import type { Lifecycle } from "../../src/http/lifecycle.ts";
import { createProject } from "../../src/admin/projects.ts";

export interface TestGw {
  /** Base URL including /v1. */
  url: string;
  deps: Deps;
  /** What /readyz reads: a test may mark gw draining or its storage unhealthy. */
  lifecycle: Lifecycle;
  dataDir: string;
  projectId: string;
  /** A test key with the default scopes plus `requests`. */
  testKey: string;
  key(options?: { scopes?: KeyScope[]; mode?: "live" | "test"; projectId?: string }): string;
  newProject(name?: string): string;
  /** Waits until every request served so far is in the log. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

/** `clock` replaces the wall clock for TTLs, windows and periods (tests move time, never sleep). */
export async function startTestGw(env: Record<string, string> = {}, options: { clock?: Clock } = {}): Promise<TestGw> {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-test-"));
  // Tests read the traces of many test-key requests: the test-key trace quota (docs/observability.md
  // "Trace storage") is lifted unless a test sets it; the disk reserve is kept small.
  const config = loadConfig({ port: "0", data: dataDir }, {
    GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_TEST_TRACES_PER_MIN: "1000000", GW_STORAGE_RESERVE_MB: "1", ...env,
  });
  const deps = buildDeps(config, { logger: createLogger(process.env.GW_TEST_LOG_LEVEL ?? "silent"), clock: options.clock });
  const projectId = createProject(deps.repos.projects, { name: "test" }).id;
  const server = startServer(config, { deps, quiet: true });
  const key: TestGw["key"] = (o = {}) =>
    issueKey(deps.repos.apiKeys, { projectId: o.projectId ?? projectId, scopes: o.scopes ?? null, mode: o.mode ?? "test" }).secret;
  return {
    url: server.url,
    deps,
    lifecycle: server.lifecycle,
    dataDir,
    projectId,
    testKey: key({ scopes: ["chat", "embeddings", "models", "cache", "requests"] }),
    key,
    newProject: (name = "other") => createProject(deps.repos.projects, { name }).id,
    drain: () => deps.logWriter.drain(),
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs JSON (or a raw string) with a Bearer key. */
export function post(url: string, key: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function get(url: string, key: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
}
