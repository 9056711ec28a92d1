// mitata: one non-streaming chat request (and the same through /responses) through gw's whole app (app.handle: auth, parse, analyze,
// route, call, meter, record, the JSON response) with no network: fetch answers at once from
// memory. This is gw's own work on the request thread, without the HTTP server and client that
// the throughput scenario adds. With the request log on, rows are encoded and handed to the log
// worker, whose SQLite time runs on its own thread and is not in these figures.
import { bench, do_not_optimize } from "mitata";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { createApp } from "../../src/http/app.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { type Deps } from "../../src/pipeline/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { answerEveryFetch, runMicro } from "./harness.ts";

answerEveryFetch();

const prompt = "Summarise the following note for a colleague. ".repeat(20).slice(0, 900);
const chatBody = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }], max_tokens: 64 });
const responsesBody = JSON.stringify({ model: "openai/gpt-4o-mini", input: prompt, max_output_tokens: 64 });
// Info lines are built and written, as in production, to a sink that drops them.
const logger = createLogger("info", { write: () => {} });
const dirs: string[] = [];
const deployments: Deps[] = [];

function gw(requestLog: boolean, path = "/v1/chat/completions") {
  const body = path === "/v1/responses" ? responsesBody : chatBody;
  const dataDir = mkdtempSync(join(tmpdir(), "gw-micro-path-"));
  dirs.push(dataDir);
  const config = loadConfig({ port: "0", data: dataDir }, { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  const deps = buildDeps(config, { logger });
  deployments.push(deps);
  if (!requestLog) deps.logWriter.enqueue = () => {};
  const projectId = createProject(deps.repos.projects, { name: "micro" }).id;
  const key = issueKey(deps.repos.apiKeys, { projectId, mode: "live" }).secret;
  const app = createApp(deps);
  // The same request repeated: the response cache is off, or every iteration after the first would be a hit.
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length), "x-gw-cache": "off" };
  return async () => {
    const res = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body }));
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    do_not_optimize(await res.text());
  };
}

try {
  bench("chat request, request log on (row + trace to the worker)", gw(true));
  bench("chat request, request log off", gw(false));
  bench("responses request, request log on", gw(true, "/v1/responses"));
  await runMicro();
} finally {
  for (const deps of deployments) await deps.logWriter.drain();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
