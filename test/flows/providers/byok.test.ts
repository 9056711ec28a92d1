// Bring your own provider keys (issue 4 item 7): the admin API stores a project's key sealed and
// never returns it; that project's calls go upstream with its own key (marked BYOK in the trace),
// other projects keep the operator's; a `byok` API key is never served with the operator's key.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../../src/admin/projects.ts";
import { putProviderKey } from "../../../src/admin/provider-keys.ts";
import { issueKey } from "../../../src/auth/api-keys.ts";
import { loadConfig } from "../../../src/config/env.ts";
import { buildDeps } from "../../../src/deps.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { startServer } from "../../../src/server.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { admin as adminCall } from "../../helpers/admin-api.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";

const OPERATOR_KEY = "sk-operator-0000000000";
const PROJECT_KEY = "sk-project-own-1111111111";

let operatorUpstream: ScriptedUpstream;
let projectUpstream: ScriptedUpstream;
let gw: TestGw;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: operatorUpstream }, spare: { projectUpstream }, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, OPERATOR_KEY) }, spare: { projectUpstream: openaiUpstream() },
  }));
});
afterAll(() => stop());

const admin = (method: string, path: string, body?: unknown) => adminCall(gw, method, path, body);
// Cache off: every call must reach an upstream to show whose key it carried.
const chat = (key: string) => post(`${gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { "x-gw-cache": "off" });
const lastAuth = (u: ScriptedUpstream) => u.calls.at(-1)?.headers.authorization;

describe("routing with a project's own key", () => {
  test("the project's calls carry its key to its base_url and are marked BYOK; other projects use the operator's", async () => {
    const own = gw.newProject("byok-own");
    const other = gw.newProject("byok-other");
    expect((await admin("PUT", `/projects/${own}/provider-keys/openai`, { api_key: PROJECT_KEY, base_url: projectUpstream.url })).status).toBe(200);
    const ownKey = gw.key({ mode: "live", projectId: own, scopes: ["chat", "requests"] });
    const res = await chat(ownKey);
    expect(res.status).toBe(200);
    expect(lastAuth(projectUpstream)).toBe(`Bearer ${PROJECT_KEY}`);
    const id = res.headers.get("x-gw-request-id")!;
    await gw.drain();
    const detail = (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${ownKey}` } })).json()) as { trace: { byok: boolean; attempts: Array<{ byok?: boolean }> } };
    expect(detail.trace.byok).toBe(true);
    expect(detail.trace.attempts[0]!.byok).toBe(true);

    const otherKey = gw.key({ mode: "live", projectId: other, scopes: ["chat", "requests"] });
    expect((await chat(otherKey)).status).toBe(200);
    expect(lastAuth(operatorUpstream)).toBe(`Bearer ${OPERATOR_KEY}`);
    const otherId = (await chat(otherKey)).headers.get("x-gw-request-id")!;
    await gw.drain();
    const otherDetail = (await (await fetch(`${gw.url}/requests/${otherId}`, { headers: { authorization: `Bearer ${otherKey}` } })).json()) as { trace: { byok: boolean } };
    expect(otherDetail.trace.byok).toBe(false);

    // Deleted: the next call goes out with the operator's key at once (admin writes clear the cache).
    expect((await admin("DELETE", `/projects/${own}/provider-keys/openai`)).status).toBe(200);
    const before = operatorUpstream.calls.length;
    expect((await chat(ownKey)).status).toBe(200);
    expect(operatorUpstream.calls.length).toBe(before + 1);
    expect(lastAuth(operatorUpstream)).toBe(`Bearer ${OPERATOR_KEY}`);
  });

  test("a byok API key is never served with the operator's key: 503 without a project key, served with one", async () => {
    const project = gw.newProject("byok-only");
    const res = await admin("POST", `/projects/${project}/keys`, { byok: true, mode: "live" });
    const byokKey = ((await res.json()) as { key: string }).key;
    const before = operatorUpstream.calls.length;
    const refused = await chat(byokKey);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("no_model_available");
    expect(operatorUpstream.calls.length).toBe(before);

    await admin("PUT", `/projects/${project}/provider-keys/openai`, { api_key: PROJECT_KEY, base_url: projectUpstream.url });
    expect((await chat(byokKey)).status).toBe(200);
    expect(lastAuth(projectUpstream)).toBe(`Bearer ${PROJECT_KEY}`);
  });
});

describe("restart", () => {
  test("a stored key still opens after a restart on the same data directory (generated secret.key)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-byok-restart-"));
    const env = { OPENAI_API_KEY: OPERATOR_KEY, OPENAI_BASE_URL: operatorUpstream.url };
    const boot = () => {
      const config = loadConfig({ port: "0", data: dataDir }, env);
      return startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
    };
    try {
      const first = boot();
      const project = createProject(first.deps.repos.projects, { name: "restart" }).id;
      const key = issueKey(first.deps.repos.apiKeys, { projectId: project, mode: "live" }).secret;
      putProviderKey(first.deps.repos.providerKeys, first.deps.secrets, project, "openai", { api_key: PROJECT_KEY, base_url: projectUpstream.url });
      await first.stop();
      const second = boot();
      const res = await post(`${second.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "again" }] });
      expect(res.status).toBe(200);
      expect(lastAuth(projectUpstream)).toBe(`Bearer ${PROJECT_KEY}`);
      await second.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
