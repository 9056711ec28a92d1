// GET /readyz's checks (docs/availability.md "Readiness"): start-up work under way, the sentence model
// loading for a semantic-cache project, no provider able to answer; /healthz stays 200 meanwhile.
// Draining and storage are pinned by test/contract/health.test.ts, SIGTERM by test/flows/shutdown-*.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject, updateProject } from "../../src/admin/projects.ts";
import { putProviderKey } from "../../src/admin/provider-keys.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { Lifecycle } from "../../src/http/lifecycle.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { waitFor } from "../helpers/wait-for.ts";

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A server over a data directory that already holds a project (so no first-run test key), made by `seed`. */
function start(env: Record<string, string>, seed: (deps: ReturnType<typeof buildDeps>, projectId: string) => void = () => {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-ready-"));
  dirs.push(dataDir);
  const config = loadConfig({ port: "0", data: dataDir }, { GW_STORAGE_RESERVE_MB: "1", ...env });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  const projectId = createProject(deps.repos.projects, { name: "p" }).id;
  seed(deps, projectId);
  const server = startServer(config, { deps, quiet: true });
  servers.push(server);
  const base = server.url.replace(/\/v1$/, "");
  const app = createApp(deps, server.lifecycle);
  const probe = async (via: "fetch" | "handle" = "fetch") => {
    const res = via === "fetch" ? await fetch(`${base}/readyz`) : await app.handle(new Request("http://localhost/readyz"));
    return { status: res.status, body: (await res.json()) as { status: string; reasons?: string[] } };
  };
  return { server, deps, projectId, base, probe };
}

describe("starting", () => {
  test("503 starting while start-up work is under way, /healthz 200 meanwhile; ready once it ends", async () => {
    const { deps } = start({ GW_SEMANTIC_EMBEDDER: "off", OPENAI_API_KEY: "sk-ready" });
    const lifecycle = new Lifecycle();
    const app = createApp(deps, lifecycle);
    const gate = Promise.withResolvers<void>();
    lifecycle.until("starting", gate.promise);
    const ready = await app.handle(new Request("http://localhost/readyz"));
    expect(ready.status).toBe(503);
    expect(ready.headers.get("x-gw-api-version")).toBe("2026-10-04");
    expect(await ready.json()).toEqual({ status: "unavailable", reasons: ["starting"] });
    expect((await app.handle(new Request("http://localhost/healthz"))).status).toBe(200);
    gate.resolve();
    await gate.promise;
    const after = await app.handle(new Request("http://localhost/readyz"));
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: "ready" });
  });

  test("a start-up step that fails ends its reason too (its failure is in the log)", async () => {
    const lifecycle = new Lifecycle();
    const failed = Promise.reject(new Error("no"));
    lifecycle.until("sentence model loading", failed);
    expect(lifecycle.notReadyReasons()).toEqual(["sentence model loading"]);
    await failed.catch(() => {});
    expect(lifecycle.notReadyReasons()).toEqual([]);
  });

  test("a real server is ready once it has started (store open and migrated, services running)", async () => {
    const { probe } = start({ GW_SEMANTIC_EMBEDDER: "off", OPENAI_API_KEY: "sk-ready" });
    await waitFor(async () => (await probe()).status === 200, { what: "/readyz 200" });
    expect((await probe()).body).toEqual({ status: "ready" });
  });
});

describe("providers", () => {
  const NO_PROVIDER = /^no provider: set one's key \(OPENAI_API_KEY/;

  test("no provider, no project key, no test key: 503 naming what to do; /healthz 200", async () => {
    const { base, probe, deps, projectId } = start({ GW_SEMANTIC_EMBEDDER: "off" }, (d, id) => {
      issueKey(d.repos.apiKeys, { projectId: id, mode: "live" });
    });
    const first = await probe();
    expect(first.status).toBe(503);
    expect(first.body.status).toBe("unavailable");
    expect(first.body.reasons).toHaveLength(1);
    expect(first.body.reasons![0]).toMatch(NO_PROVIDER);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // A test key makes test mode usable; revoking it takes that away again.
    const { key } = issueKey(deps.repos.apiKeys, { projectId, mode: "test" });
    expect((await probe()).status).toBe(200);
    deps.repos.apiKeys.revoke(key.id, Date.now());
    expect((await probe()).body.reasons?.[0]).toMatch(NO_PROVIDER);

    // A project's own provider key is a provider.
    putProviderKey(deps.repos.providerKeys, deps.secrets, projectId, "openai", { api_key: "sk-project" });
    expect(await probe()).toEqual({ status: 200, body: { status: "ready" } });
  });

  test("a provider from the environment is enough, without any key", async () => {
    const { probe } = start({ GW_SEMANTIC_EMBEDDER: "off", ANTHROPIC_API_KEY: "sk-ant-ready" });
    expect(await probe()).toEqual({ status: 200, body: { status: "ready" } });
  });

  test("while draining only 'shutting down' is said (the store is not read)", async () => {
    const { server, probe } = start({ GW_SEMANTIC_EMBEDDER: "off" });
    await waitFor(() => !server.lifecycle.notReadyReasons().includes("starting"), { what: "the start to end" });
    server.lifecycle.draining = true;
    try {
      expect(await probe("handle")).toEqual({ status: 503, body: { status: "unavailable", reasons: ["shutting down"] } });
    } finally {
      server.lifecycle.draining = false;
    }
  });
});

describe("the sentence model", () => {
  test("a project with the semantic cache: 503 while the model loads, then ready", async () => {
    const { probe } = start({ OPENAI_API_KEY: "sk-ready" }, (d, id) => {
      updateProject(d.repos.projects, id, { policy: { semantic_cache: true } }, []);
    });
    // Same task as the start: the model's worker cannot have answered yet.
    const first = await probe("handle");
    expect(first.status).toBe(503);
    expect(first.body.reasons).toContain("sentence model loading");
    await waitFor(async () => (await probe()).status === 200, { timeoutMs: 60_000, what: "the sentence model to load" });
  });

  test("no project uses the semantic cache: the model is not waited for", async () => {
    const { probe, deps } = start({ OPENAI_API_KEY: "sk-ready" });
    expect(deps.config.semanticEmbedder).toBe("use");
    await waitFor(async () => (await probe()).status === 200, { what: "/readyz 200" });
    expect(deps.semantic).toBeDefined();
  });
});
