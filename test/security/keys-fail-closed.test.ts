// Keys fail closed (issue 15 item 5): a project's sealed provider key that the current secret key
// cannot open (secret.key lost, GW_SECRET_KEY changed) makes that project's requests answer 503
// provider_unavailable saying so, and start-up says it loudly; the operator's key is never used.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { putProviderKey } from "../../src/admin/provider-keys.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { SECRET_KEY_FILE } from "../../src/lib/secret-box.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { type ScriptedUpstream, startScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { post } from "../helpers/test-gw.ts";

let operatorUpstream: ScriptedUpstream;
let projectUpstream: ScriptedUpstream;
let dataDir: string;

beforeAll(async () => {
  operatorUpstream = await startScriptedUpstream();
  projectUpstream = await startScriptedUpstream();
  dataDir = mkdtempSync(join(tmpdir(), "gw-keys-closed-"));
});
afterAll(async () => {
  await operatorUpstream.stop();
  await projectUpstream.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A logger that keeps each line's message and fields (no prompt or key is ever in them). */
function capturingLogger(lines: string[]) {
  const logger = createLogger("silent");
  const keep = (level: string) => (a: unknown, b?: unknown) => {
    lines.push(`${level} ${typeof a === "string" ? a : `${String(b)} ${JSON.stringify(a, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`}`);
  };
  return Object.assign(Object.create(logger) as typeof logger, { error: keep("error"), warn: keep("warn") });
}

test("a lost secret.key: the project's requests answer 503 saying its key cannot be opened; no call on the operator's key", async () => {
  const env = { OPENAI_API_KEY: "sk-operator-0000000000", OPENAI_BASE_URL: operatorUpstream.url };
  const config = loadConfig({ port: "0", data: dataDir }, env);
  const first = startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
  const project = createProject(first.deps.repos.projects, { name: "sealed" }).id;
  const other = createProject(first.deps.repos.projects, { name: "operator" }).id;
  const key = issueKey(first.deps.repos.apiKeys, { projectId: project, mode: "live" }).secret;
  const otherKey = issueKey(first.deps.repos.apiKeys, { projectId: other, mode: "live" }).secret;
  putProviderKey(first.deps.repos.providerKeys, first.deps.secrets, project, "openai", { api_key: "sk-project-3333333333", base_url: projectUpstream.url });
  await first.stop();

  unlinkSync(join(dataDir, SECRET_KEY_FILE));
  const lines: string[] = [];
  const second = startServer(config, { deps: buildDeps(config, { logger: capturingLogger(lines) }), quiet: true });
  try {
    expect(lines.some((l) => l.startsWith("error SEALED PROVIDER KEYS CANNOT BE OPENED"))).toBe(true);
    expect(lines.some((l) => l.includes(project) && l.includes("cannot be opened"))).toBe(true);
    const before = operatorUpstream.callCount() + projectUpstream.callCount();
    const body = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hello" }] };
    for (const model of ["openai/gpt-4o-mini", "gw-auto"]) {
      const res = await post(`${second.url}/chat/completions`, key, { ...body, model }, { "x-gw-cache": "off" });
      expect(res.status).toBe(503);
      expect(res.headers.get("x-gw-api-version")).not.toBeNull();
      const err = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(err.code).toBe("provider_unavailable");
      expect(err.message).toContain("provider key cannot be opened");
    }
    const embed = await post(`${second.url}/embeddings`, key, { model: "openai/text-embedding-3-small", input: "x" });
    expect(embed.status).toBe(503);
    expect(operatorUpstream.callCount() + projectUpstream.callCount()).toBe(before);
    // Other projects are not affected.
    expect((await post(`${second.url}/chat/completions`, otherKey, body, { "x-gw-cache": "off" })).status).toBe(200);
  } finally {
    await second.stop();
  }
});
