// Reads never hang (issue 14, docs/availability.md "Storage"): with the request log stuck (a write
// that never commits, as on a full disk), GET /requests, /requests/{id}, /metrics and feedback
// answer from what is on disk after a bounded wait, instead of awaiting a drain without end.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueKey } from "../../src/auth/api-keys.ts";
import { createProject } from "../../src/admin/projects.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { LogWriter, type LogSink } from "../../src/store/log-writer.ts";
import { get, post } from "../helpers/test-gw.ts";

test("with the log stuck, reads answer from disk; chat keeps its 200 and its row once the log moves", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-stuck-"));
  const config = loadConfig({ port: "0", data: dataDir }, { GW_SEMANTIC_EMBEDDER: "off", GW_STORAGE_RESERVE_MB: "1" });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  const held: Array<() => void> = [];
  const real = deps.repos.requests;
  // Batches wait until released, then are written for real.
  const stuck: LogSink = { insertBatch: (batch) => new Promise<void>((resolve) => held.push(() => (real.insertBatch(batch), resolve()))) };
  deps.logWriter = new LogWriter(stuck, { reporter: deps.storage.reporter("log") });
  const projectId = createProject(deps.repos.projects, { name: "stuck" }).id;
  const key = issueKey(deps.repos.apiKeys, { projectId, scopes: ["chat", "models", "requests"], mode: "test" }).secret;
  const server = startServer(config, { deps, quiet: true });
  try {
    const answer = await post(`${server.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(answer.status).toBe(200);
    const id = answer.headers.get("x-gw-request-id")!;
    expect(deps.logWriter.pending).toBe(1);
    const [list, one, metrics, feedback, models] = await Promise.all([
      get(`${server.url}/requests`, key),
      get(`${server.url}/requests/${id}`, key),
      get(`${server.url}/metrics`, key),
      post(`${server.url}/requests/${id}/feedback`, key, { rating: 5 }),
      get(`${server.url}/models`, key),
    ]);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
    // Not on disk yet: answered as such, in the envelope.
    expect(one.status).toBe(404);
    expect(one.headers.get("x-gw-api-version")).toBeTruthy();
    expect(metrics.status).toBe(200);
    expect(feedback.status).toBe(404);
    expect(models.status).toBe(200);
    expect(deps.logWriter.pending).toBe(1);
    held.splice(0).forEach((r) => r());
    await deps.logWriter.drain();
    expect((await get(`${server.url}/requests/${id}`, key)).status).toBe(200);
  } finally {
    held.splice(0).forEach((r) => r());
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
