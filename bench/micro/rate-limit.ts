// mitata: the rate_limit stage per request (docs/rate-limits.md): the skip test on a project without
// limits, and admission plus settlement with project and key rpm/tpm, for one hot key and for
// 100,000 keys in rotation (a large table). Limits are high, so nothing is refused.
import { bench, do_not_optimize, group } from "mitata";
import type { AuthContext } from "../../src/auth/api-keys.ts";
import { compileRules } from "../../src/auth/project-rules.ts";
import { RateLimiter } from "../../src/billing/rate-limit.ts";
import type { Deps } from "../../src/pipeline/deps.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import { rateLimit, rateLimitApplies, settleTokens } from "../../src/pipeline/stages/rate-limit.ts";
import { newState, type RequestState } from "../../src/pipeline/state.ts";
import { runMicro } from "./harness.ts";

const limits = { rpm: 1e9, tpm: 1e12, per_key: { rpm: 1e9, tpm: 1e12 } };
const deps = { rateLimits: new RateLimiter() } as Pick<Deps, "rateLimits"> as Deps;
const http = new Request("http://127.0.0.1/v1/chat/completions", { method: "POST" });

function authOf(keyId: string, policy: Record<string, unknown>): AuthContext {
  const project = { id: "prj_bench", name: "bench", plan: "pro", policy, createdAt: 0 } as unknown as AuthContext["project"];
  const key = { id: keyId, projectId: "prj_bench", mode: "live", scopes: ["chat"] } as unknown as AuthContext["key"];
  return { project, key, test: false, rules: compileRules(project, key) };
}

/** States made up front, as the pipeline has them when the stage runs (after analysis). */
function states(n: number, keys: number, policy: Record<string, unknown>): RequestState[] {
  const out: RequestState[] = [];
  for (let i = 0; i < n; i++) {
    const s = newState({ requestId: `req_${i}`, traceId: "t", parentSpanId: null, auth: authOf(`key_${i % keys}`, policy), http, spans: new SpanRecorder(0), t0: 0 });
    s.request = { model: "gw-auto", messages: [{ role: "user", content: "hello" }], max_tokens: 256 };
    s.inputTokens = 1000;
    s.usage = { prompt_tokens: 250, completion_tokens: 120, total_tokens: 370 };
    out.push(s);
  }
  return out;
}

const unlimited = states(1, 1, {})[0]!;
const hot = states(4096, 1, { rate_limits: limits });
const wide = states(100_000, 100_000, { rate_limits: limits });
let i = 0;

group("rate_limit stage, per request", () => {
  bench("skip: project without rate_limits (applies only)", () => do_not_optimize(rateLimitApplies(deps, unlimited)));
  bench("admit + settle, project and key rpm/tpm, one key", () => {
    const s = hot[i++ & 4095]!;
    rateLimit(deps, s);
    settleTokens(deps, s);
  });
  bench("admit + settle, 100,000 keys in rotation", () => {
    const s = wide[i++ % 100_000]!;
    rateLimit(deps, s);
    settleTokens(deps, s);
  });
});

await runMicro();
