// Test keys never cause a live provider call (issue 15 item 5), embeddings included: with
// GW_SEMANTIC_EMBEDDER=provider a test key's question is neither embedded for a lookup nor indexed,
// and the start-up rebuild of the semantic index never sends a question a test key stored.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { putProviderKey } from "../../src/admin/provider-keys.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { type ScriptedUpstream, startScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { post } from "../helpers/test-gw.ts";

let embedUp: ScriptedUpstream;
let chatUp: ScriptedUpstream;
let dataDir: string;

beforeAll(async () => {
  embedUp = await startScriptedUpstream();
  chatUp = await startScriptedUpstream();
  dataDir = mkdtempSync(join(tmpdir(), "gw-test-embed-"));
});
afterAll(async () => {
  await embedUp.stop();
  await chatUp.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const PROVIDER_EMBEDDER = () => ({ GW_SEMANTIC_EMBEDDER: "provider", OPENAI_API_KEY: "sk-operator-0000000000", OPENAI_BASE_URL: embedUp.url });
const embeddedTexts = () => embedUp.calls.filter((c) => c.path === "/v1/embeddings").flatMap((c) => (c.body as { input: string[] }).input);

function boot(env: Record<string, string>) {
  const config = loadConfig({ port: "0", data: dataDir }, { GW_STORAGE_RESERVE_MB: "1", ...env });
  return startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
}

/** A project with the semantic cache on, a test key, and a live key answered on `chatUp` (its own key). */
function semanticProject(server: ReturnType<typeof boot>) {
  const deps = server.deps;
  const project = createProject(deps.repos.projects, { name: "semantic", policy: { semantic_cache: true } }).id;
  putProviderKey(deps.repos.providerKeys, deps.secrets, project, "openai", { api_key: "sk-own-4444444444", base_url: chatUp.url });
  return {
    testKey: issueKey(deps.repos.apiKeys, { projectId: project, mode: "test" }).secret,
    liveKey: issueKey(deps.repos.apiKeys, { projectId: project, mode: "live" }).secret,
  };
}

const ask = async (server: ReturnType<typeof boot>, key: string, content: string) => {
  const res = await post(`${server.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content }] });
  expect(res.status).toBe(200);
  await server.deps.semantic!.settled();
};

test("with GW_SEMANTIC_EMBEDDER=provider a test key's lookups and stores embed nothing; a live key's do", async () => {
  const server = boot(PROVIDER_EMBEDDER());
  try {
    const { testKey, liveKey } = semanticProject(server);
    embedUp.reset();
    await ask(server, testKey, "How do I rotate the deploy token for staging?");
    await ask(server, testKey, "how do I rotate the deploy token for staging");
    expect(embedUp.callCount()).toBe(0);
    await ask(server, liveKey, "Where are the nightly build logs kept?");
    expect(embeddedTexts()).toContain("Where are the nightly build logs kept?");
  } finally {
    await server.stop();
  }
});

test("the start-up rebuild with a provider embedder never sends a question a test key stored", async () => {
  rmSync(dataDir, { recursive: true, force: true });
  dataDir = mkdtempSync(join(tmpdir(), "gw-test-embed-"));
  // Stored under a local embedder, where test keys' questions are indexed like any other.
  const first = boot({ GW_SEMANTIC_EMBEDDER: "ngram" });
  try {
    const { testKey, liveKey } = semanticProject(first);
    await ask(first, testKey, "What is the refund window for annual plans?");
    await ask(first, liveKey, "Which regions does the CDN serve from?");
  } finally {
    await first.stop();
  }
  embedUp.reset();
  const second = boot(PROVIDER_EMBEDDER());
  try {
    await second.deps.semantic!.settled();
    const sent = embeddedTexts();
    expect(sent).toContain("Which regions does the CDN serve from?");
    expect(sent).not.toContain("What is the refund window for annual plans?");
  } finally {
    await second.stop();
  }
});
