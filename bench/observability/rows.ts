// Realistic request-log rows for the observability benches: several models, statuses, workflows
// and caller traces, streams with ttft, log-normal latencies, traces of ~1.5-5 KB. Deterministic
// (seeded PRNG), so a seeded database and its figures can be reproduced.
import { requestIdAt } from "../../src/lib/ids.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { prng } from "../lib/prng.ts";
export { prng };

export const MODELS = [
  { id: "openai/gpt-4o-mini", weight: 35, perToken: 0.6e-6, latency: 700 },
  { id: "anthropic/claude-haiku-4-5", weight: 20, perToken: 4e-6, latency: 900 },
  { id: "google/gemini-2.5-flash", weight: 15, perToken: 2.5e-6, latency: 600 },
  { id: "openai/gpt-5", weight: 10, perToken: 10e-6, latency: 2500 },
  { id: "deepseek/deepseek-chat", weight: 12, perToken: 1.1e-6, latency: 1200 },
  { id: "groq/llama-3.3-70b-versatile", weight: 8, perToken: 0.8e-6, latency: 300 },
] as const;

/** [status, code, category] with weights per 1,000 requests; the rest succeed. */
export const FAILURES = [
  [429, "rate_limited", "RATE_LIMIT", 20],
  [502, "upstream_error", "UPSTREAM_ERROR", 15],
  [400, "invalid_request", "VALIDATION_FAILED", 15],
  [404, "model_not_found", "MODEL_NOT_FOUND", 5],
  [504, "timeout", "TIMEOUT", 5],
  [503, "provider_unavailable", "PROVIDER_UNAVAILABLE", 4],
  [402, "budget_exceeded", "BUDGET_EXCEEDED", 3],
  [400, "blocked_by_policy", "POLICY_BLOCKED", 3],
] as const;

export const WORKFLOWS = 2000;
const TASKS = ["chat", "coding", "summarization", "extraction", "classification", "reasoning"] as const;

const pickWeighted = <T extends { weight: number }>(items: readonly T[], r: number): T => {
  const total = items.reduce((n, x) => n + x.weight, 0);
  let x = r * total;
  for (const item of items) if ((x -= item.weight) < 0) return item;
  return items[items.length - 1]!;
};

/** A log-normal sample around `median` (sigma 0.6), from two uniforms (Box-Muller). */
const logNormal = (median: number, u1: number, u2: number): number =>
  median * Math.exp(0.6 * Math.sqrt(-2 * Math.log(u1 || 1e-12)) * Math.cos(2 * Math.PI * u2));

function traceOf(rand: () => number, model: string, latency: number, failed: boolean, candidates: number) {
  return {
    spans: [["request", 0, latency, null], ["authentication", 0, 0.4, null], ["parse", 1.2, 1.1, null], ["guard", 2.4, 0.07, null],
      ["analysis", 2.5, 2.1, null], ["cache", 4.6, 0.7, null], ["routing", 5.4, 2.1, null],
      ["llm", 8.2, latency - 9, failed ? "upstream_error" : null, { provider: model.split("/")[0], model, attempt: 0, stream: false }]],
    detected: { task: "chat", subtype: "general", source: "detected", input_tokens_bound: 300, language: "en", complexity: "low" },
    profile: "gw-auto", workload: "support", required_quality: 0.7, weights: { quality: 0.5, cost: 0.3, latency: 0.2 },
    candidates: Array.from({ length: candidates }, (_, i) => ({ model: MODELS[i % MODELS.length]!.id, provider: "p", rank: i, score: +(0.9 - i * 0.01).toFixed(3), quality: 0.8 })),
    reasons: ["required quality 0.7 for chat (gw-auto, low complexity)"],
    expected: { cost: 0.0005, latency_ms: 900, quality: 0.86 },
    reason: "highest score of eligible models",
    attempts: [{ model, provider: "p", status: failed ? "error" : "ok", error_code: null, duration_ms: Math.round(latency) }],
    timings: { call: latency }, cache: { result: "miss", kind: null, miss_reason: "not_found" },
    versions: { gateway: "0.1.0", api: "2026-10-04", router: "profiles-1" }, n: rand(),
  };
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** An id of lib/ids.ts's form for a past time. sortableId cannot mint one: it never goes back in
 * time within a process, and this process has already minted ids (project, key) today. */
export function idAt(ms: number, seq: number, rand: () => number): string {
  let tail = "";
  for (let i = 0; i < 8; i++) tail += ALPHABET[Math.floor(rand() * 32)];
  return `${requestIdAt(ms).slice(4)}${(seq % 32768).toString(32).padStart(4, "0")}${tail}`;
}

/** Rows spread over [from, to) in time order; `projects[0]` gets ~90% of them. */
export function* generateRows(count: number, from: number, to: number, projects: readonly string[], seed = 1): Generator<RequestRecord> {
  const rand = prng(seed);
  const step = (to - from) / count;
  let callerTrace = "";
  let callerTraceLeft = 0;
  for (let i = 0; i < count; i++) {
    const createdAt = Math.floor(from + i * step + rand() * step * 0.9);
    const id = `req_${idAt(createdAt, i, rand)}`;
    const projectId = rand() < 0.9 ? projects[0]! : projects[1 + Math.floor(rand() * (projects.length - 1))] ?? projects[0]!;
    const model = pickWeighted(MODELS, rand());
    const f = Math.floor(rand() * 1000);
    let acc = 0;
    const failure = FAILURES.find((x) => (acc += x[3]) > f);
    const callerSide = failure !== undefined && failure[0] < 429;
    const stream = rand() < 0.4;
    const latency = callerSide ? 1 + Math.floor(rand() * 4) : Math.max(1, Math.round(logNormal(model.latency, rand(), rand())));
    const input = callerSide ? 0 : 50 + Math.floor(rand() * 2000);
    const output = failure ? 0 : 10 + Math.floor(rand() * 800);
    const cost = failure ? 0 : +((input + output * 3) * model.perToken).toFixed(8);
    // A third of the requests arrive in caller traces of about three requests each.
    if (callerTraceLeft === 0 && rand() < 0.12) (callerTrace = `trc_${idAt(createdAt, i, rand)}`), (callerTraceLeft = 3);
    const traceId = callerTraceLeft > 0 ? (callerTraceLeft--, callerTrace) : `trc_${id.slice(4)}`;
    yield {
      id, projectId, keyId: "key_bench", traceId, createdAt, endpoint: "chat.completions", requestedModel: "gw-auto",
      selectedModel: failure && callerSide ? null : model.id, provider: model.id.split("/")[0]!,
      task: TASKS[Math.floor(rand() * TASKS.length)]!, taskSubtype: "general", inputTokens: input, outputTokens: output,
      cost, saved: rand() < 0.1 ? +(cost * 0.5).toFixed(8) : 0, cache: rand() < 0.05 ? "exact" : null,
      status: failure ? failure[0] : 200, errorCode: failure ? failure[1] : null, errorMessage: failure ? "bench failure" : null,
      errorCategory: failure ? failure[2] : null, latencyMs: latency,
      ttftMs: stream && !failure ? Math.max(1, Math.round(latency * (0.1 + rand() * 0.3))) : null,
      overheadMs: 0.8, fallbacks: !callerSide && rand() < 0.03 ? 1 : 0,
      workflowId: rand() < 0.3 ? `wf_${Math.floor(rand() * WORKFLOWS)}` : null, step: null, tags: rand() < 0.2 ? ["batch"] : [],
      stream, test: false, trace: traceOf(rand, model.id, latency, failure !== undefined, rand() < 0.3 ? 37 : 5),
    };
  }
}
