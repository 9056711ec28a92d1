// mitata: the analyze and route stages as the pipeline runs them, for a typical 1,000-token request
// with a live key (OpenAI enabled): the gw-auto profile and an explicit model id. Deps are built as
// test/helpers/test-gw.ts builds them, over a temp SQLite dir.
import { bench, do_not_optimize, group } from "mitata";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { authenticate, issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import { analyze } from "../../src/pipeline/stages/analyze.ts";
import { route } from "../../src/pipeline/stages/route.ts";
import { newState } from "../../src/pipeline/state.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { runMicro } from "./harness.ts";
import { promptOfTokens } from "./prompt.ts";

const dataDir = mkdtempSync(join(tmpdir(), "gw-micro-"));
try {
  const config = loadConfig({ port: "0", data: dataDir }, { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  const projectId = createProject(deps.repos.projects, { name: "micro" }).id;
  const secret = issueKey(deps.repos.apiKeys, { projectId, mode: "live" }).secret;
  const auth = authenticate(`Bearer ${secret}`, deps.repos);
  const http = new Request("http://127.0.0.1/v1/chat/completions", { method: "POST" });
  const prompt = promptOfTokens(1_000);
  const request = (model: string): ChatRequest => ({ model, messages: [{ role: "user", content: prompt }], max_tokens: 256 });

  const stateFor = (req: ChatRequest) => {
    const t0 = performance.now();
    const state = newState({ requestId: "req_micro", traceId: "trace_micro", parentSpanId: null, auth, http, spans: new SpanRecorder(t0), t0 });
    state.request = req;
    state.requestedModel = req.model;
    return state;
  };

  group("analyze + route, 1,000-token request, live key", () => {
    const auto = request("gw-auto");
    const explicit = request("openai/gpt-4o-mini");
    bench("newState only (baseline)", () => do_not_optimize(stateFor(auto)));
    bench("analyze", () => {
      const s = stateFor(auto);
      analyze(deps, s);
      do_not_optimize(s);
    });
    bench("analyze + route, profile gw-auto", () => {
      const s = stateFor(auto);
      analyze(deps, s);
      route(deps, s);
      do_not_optimize(s);
    });
    bench("analyze + route, model openai/gpt-4o-mini", () => {
      const s = stateFor(explicit);
      analyze(deps, s);
      route(deps, s);
      do_not_optimize(s);
    });
  });

  await runMicro();
  deps.db.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
