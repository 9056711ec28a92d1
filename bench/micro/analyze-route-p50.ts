// p50 of analyze + route for a 1,000-token request (issue 22: under 100 µs), of the analyzer alone,
// and of the task classifier's share (features + scoring), by plain loops: each sample is the mean
// of 50 calls, 400 samples after a warm-up; each figure is wall time, then the process's CPU time
// (steadier on a loaded machine, where wall time counts waiting for a core). `bun bench/micro/analyze-route-p50.ts`
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { analyzeRequest, windowText } from "../../src/analysis/analyzer.ts";
import { scanOnce } from "../../src/analysis/scan.ts";
import { classify, sharedFeatureBuffer, TASK_MODEL } from "../../src/analysis/task-classifier.ts";
import { requestFeatures } from "../../src/analysis/task-features.ts";
import { authenticate, issueKey } from "../../src/auth/api-keys.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import { analyze } from "../../src/pipeline/stages/analyze.ts";
import { route } from "../../src/pipeline/stages/route.ts";
import { newState } from "../../src/pipeline/state.ts";
import { promptOfTokens } from "./prompt.ts";

const median = (xs: number[]): number => xs.sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** "wall / cpu µs" per call, each the median of 400 samples of 50 calls. */
function p50(fn: () => void): string {
  for (let i = 0; i < 2000; i++) fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let s = 0; s < 400; s++) {
    const t = Bun.nanoseconds();
    const c = cpuMicros();
    for (let i = 0; i < 50; i++) fn();
    cpu.push((cpuMicros() - c) / 50);
    wall.push((Bun.nanoseconds() - t) / 50 / 1000);
  }
  return `${median(wall).toFixed(1)} / ${median(cpu).toFixed(1)}`;
}

const dataDir = mkdtempSync(join(tmpdir(), "gw-micro-"));
try {
  const config = loadConfig({ port: "0", data: dataDir }, { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  const deps = buildDeps(config, { logger: createLogger("silent") });
  const projectId = createProject(deps.repos.projects, { name: "micro" }).id;
  const auth = authenticate(`Bearer ${issueKey(deps.repos.apiKeys, { projectId, mode: "live" }).secret}`, deps.repos);
  const http = new Request("http://127.0.0.1/v1/chat/completions", { method: "POST" });
  for (const [name, text] of [["1,000 tokens", promptOfTokens(1_000)], ["short question", "What is the capital of France?"]] as const) {
    const req: ChatRequest = { model: "gw-auto", messages: [{ role: "user", content: text }], max_tokens: 256 };
    const window = windowText(text);
    const pipeline = (): void => {
      const state = newState({ requestId: "req_micro", traceId: "trace_micro", parentSpanId: null, auth, http, spans: new SpanRecorder(0), t0: 0 });
      state.request = req;
      state.requestedModel = req.model;
      analyze(deps, state);
      route(deps, state);
    };
    const classifier = (): void => {
      const s = scanOnce(window);
      requestFeatures(sharedFeatureBuffer, window, s, 0, req.messages, 0, false, TASK_MODEL.options);
      classify(TASK_MODEL, sharedFeatureBuffer);
    };
    console.log(`${name} (p50 wall / CPU, µs): analyze + route ${p50(pipeline)}; analyzeRequest ${p50(() => analyzeRequest(req, { inputTokensBound: 1100 }))}; ` +
      `scan ${p50(() => scanOnce(window))}; scan + classifier ${p50(classifier)}`);
  }
  deps.db.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
