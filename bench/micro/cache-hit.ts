// mitata: the exact-cache hit's own work (issue 19 (d)): the keys of the bench's request, the
// stored answer served (lookup, served completion, answer text), the JSON response, and a whole
// hit through app.handle. Run it on two checkouts one after the other to compare.
import { bench, do_not_optimize } from "mitata";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { issueKey } from "../../src/auth/api-keys.ts";
import { servedAnswer } from "../../src/cache/cached-answer.ts";
import { cacheKeys, cacheKeyTexts, hashKeyText, type KeyContext } from "../../src/cache/key.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { jsonResponse } from "../../src/http/context.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { completionBody } from "../../src/pipeline/completion-body.ts";
import { answerEveryFetch, MICRO_ANSWER, runMicro } from "./harness.ts";

answerEveryFetch();

// The throughput bench's request (bench/lib/stack.ts chatBody), and one with a system prompt.
const prompt = "Summarise the following note for a colleague. ".repeat(20).slice(0, 900);
const request: ChatRequest = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }], max_tokens: 64 };
const withSystem: ChatRequest = { ...request, messages: [{ role: "system", content: "You are terse." }, ...request.messages] };

const logger = createLogger("info", { write: () => {} });
const dataDir = mkdtempSync(join(tmpdir(), "gw-micro-cache-hit-"));
const config = loadConfig({ port: "0", data: dataDir }, { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
const deps = buildDeps(config, { logger });
const project = createProject(deps.repos.projects, { name: "micro" });
const key = issueKey(deps.repos.apiKeys, { projectId: project.id, mode: "live" }).secret;
const app = createApp(deps);
const ctx: KeyContext = { projectId: project.id, mode: "live", scope: null, policy: {} };

const body = JSON.stringify(request);
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const post = () => app.handle(new Request("http://localhost/v1/chat/completions", { method: "POST", headers, body }));
const first = await post();
await first.text();
const second = await post();
if (second.headers.get("x-gw-cache") !== "exact") throw new Error(`the repeated request was not an exact hit: ${second.headers.get("x-gw-cache")}`);
await second.text();
await deps.logWriter.drain();

// The stored entry of the bench's request: what cache-lookup finds on every hit.
const exact = cacheKeys(request, { ...ctx, options: {} }).exact;
const stored = deps.answers.get(project.id, exact, Date.now());
if (!stored) throw new Error("no stored entry under the request's key");
const model = deps.catalog.get(stored.model);
const gw = { request_id: "req_x", selected_model: stored.model, provider: "cache", cost: 0, saved: 0.0001, cache: "exact", fallbacks: [], test: false };
const extra = { "x-gw-cache": "exact", "x-gw-model": stored.model, "x-gw-provider": "cache" };

try {
  bench("cacheKeys, the bench's request (one user message)", () => do_not_optimize(cacheKeys(request, ctx)));
  bench("cacheKeys, system prompt and user message", () => do_not_optimize(cacheKeys(withSystem, ctx)));
  bench("an exact hit's key alone, the bench's request", () => do_not_optimize(hashKeyText(cacheKeyTexts(request, ctx).exact)));
  bench("hit served: lookup, served completion, answer text", () => {
    const entry = deps.answers.get(project.id, exact, Date.now());
    const served = entry ? servedAnswer(model, entry, Date.now()) : null;
    do_not_optimize(served ? completionBody(served.completion, stored.model, gw) : null);
  });
  bench("jsonResponse with the hit's headers", () => do_not_optimize(jsonResponse(MICRO_ANSWER, "req_x", extra)));
  bench("a whole exact hit through app.handle", async () => {
    const res = await post();
    do_not_optimize(await res.text());
  });
  await runMicro();
} finally {
  await deps.logWriter.drain();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
