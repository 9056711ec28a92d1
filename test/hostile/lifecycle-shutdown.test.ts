// Shutdown with requests in flight (docs/availability.md "Shutdown"): requests that finish within
// GW_SHUTDOWN_TIMEOUT_S are answered; those still waiting on an upstream afterwards are aborted
// (the upstream call cancelled, no fallback started), answered or ended in the envelope, and
// recorded; the stop then completes and the next start on the directory sees every row.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createProject } from "../../src/admin/projects.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type HostileUpstream, startHostileUpstream } from "../helpers/scripted-hostile.ts";

let up: HostileUpstream;
const dirs: string[] = [];
beforeAll(async () => {
  up = await startHostileUpstream();
});
afterAll(async () => {
  await up.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function start(graceSeconds: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-shutdown-"));
  dirs.push(dataDir);
  const config = loadConfig({ port: "0", data: dataDir }, {
    OPENAI_API_KEY: "sk-shutdown", OPENAI_BASE_URL: up.url, GW_SEMANTIC_EMBEDDER: "off", GW_SHUTDOWN_TIMEOUT_S: graceSeconds,
  });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  const projectId = createProject(deps.repos.projects, { name: "p" }).id;
  const key = issueKey(deps.repos.apiKeys, { projectId, scopes: null, mode: "live" }).secret;
  return { server: startServer(config, { deps, quiet: true }), key, dataDir };
}

const ask = (url: string, key: string, stream: boolean) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-gw-cache": "off" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "wait for me" }], stream }),
  }).then(async (res) => ({ status: res.status, text: await res.text() }), (err: unknown) => ({ status: 0, text: String(err) }));

describe("stop with requests in flight", () => {
  test("past the grace, hung upstream calls are aborted, the requests end in the envelope and are logged", async () => {
    const { server, key, dataDir } = start("0.2");
    up.script({ kind: "hang" }, 2);
    const aborted = up.aborted;
    const calls = up.paths.length;
    const plain = ask(server.url, key, false);
    const streamed = ask(server.url, key, true);
    await up.called(2);
    expect(up.paths.length).toBe(calls + 2);
    expect(server.lifecycle.inFlight.size).toBe(2);
    await server.stop();
    await up.abortedAt(aborted + 2);
    const answers = await Promise.all([plain, streamed]);
    // Neither had an answer started: each ends in the 503 envelope, not a cut connection.
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(JSON.parse(a.text).error).toMatchObject({ code: "service_unavailable", type: "api_error" });
    }
    // No fallback or retry started after the abort.
    expect(up.paths.length).toBe(calls + 2);
    const db = openDatabase(dataDir);
    try {
      const rows = db.query<{ status: number; error_code: string; stream: number }, []>("SELECT status, error_code, stream FROM requests ORDER BY stream").all();
      expect(rows).toEqual([{ status: 503, error_code: "service_unavailable", stream: 0 }, { status: 503, error_code: "service_unavailable", stream: 1 }]);
    } finally {
      db.close();
    }
  });

  test("a request that finishes within the grace is answered normally", async () => {
    const { server, key } = start("30");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    up.script({
      kind: "gated-stream",
      before: [],
      gate,
      after: [
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { role: "assistant", content: "done" }, finish_reason: null }] })}\n\n`,
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } })}\n\n`,
        "data: [DONE]\n\n",
      ],
    });
    const pending = ask(server.url, key, true);
    await up.called();
    const stopped = server.stop();
    expect(server.lifecycle.draining).toBe(true);
    release();
    const answer = await pending;
    await stopped;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"content":"done"');
    expect(answer.text).toContain("data: [DONE]");
  });
});
