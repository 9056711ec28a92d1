// Memoised scoring (routing/route-memo.ts): the route stage's candidates, scores and expected figures
// are the ones a fresh scoring gives, for hundreds of varied requests, after health changes (an
// outcome, a circuit that opens, its cooldown running out) and after feedback.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { authenticate, issueKey } from "../../src/auth/api-keys.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import type { Deps } from "../../src/pipeline/deps.ts";
import { analyze } from "../../src/pipeline/stages/analyze.ts";
import { route } from "../../src/pipeline/stages/route.ts";
import { newState, type RequestState } from "../../src/pipeline/state.ts";
import type { GwOptions } from "../../src/schema/chat-completions.ts";
import { MEMO_KEYS, memoStats, scoreUnmemoised } from "../../src/routing/route-memo.ts";
import { diversify } from "../../src/routing/score.ts";
import { requestSpreadHash, spreadPick, startWith } from "../../src/routing/spread.ts";
import { isProfile } from "../../src/routing/profiles.ts";
import { taskKindOf } from "../../src/routing/routing-input.ts";
import { estimateCost } from "../../src/routing/cost.ts";
import { needsOf } from "../../src/pipeline/eligibility.ts";

const ENV = { OPENAI_API_KEY: "sk-t", ANTHROPIC_API_KEY: "sk-t", DEEPSEEK_API_KEY: "sk-t", MISTRAL_API_KEY: "sk-t", GROQ_API_KEY: "sk-t", XAI_API_KEY: "sk-t" };
const PROFILES = ["gw-auto", "gw-fast", "gw-balanced", "gw-quality", "gw-max", "gw-reasoning", "gw-code"];
const PROMPTS = [
  "hi", "Write a Python function that merges two sorted lists.", "Prove that the square root of 2 is irrational.",
  "Translate 'good morning, how are you' into French.", "Summarise this: the meeting moved to Tuesday; bring the slides.",
  "Extract every email address from: a@b.co, c@d.org.", "Write a short poem about the sea at night.",
];

let dataDir: string;
let deps: Deps;
let clock: ManualClock;
let live: ReturnType<typeof authenticate>;
let testAuth: ReturnType<typeof authenticate>;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "gw-memo-"));
  clock = new ManualClock(1_700_000_000_000);
  deps = buildDeps(loadConfig({ port: "0", data: dataDir }, ENV), { logger: createLogger("silent"), clock });
  const projectId = createProject(deps.repos.projects, { name: "memo" }).id;
  live = authenticate(`Bearer ${issueKey(deps.repos.apiKeys, { projectId, mode: "live" }).secret}`, deps.repos);
  testAuth = authenticate(`Bearer ${issueKey(deps.repos.apiKeys, { projectId, mode: "test" }).secret}`, deps.repos);
});
afterAll(() => {
  deps.db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The i-th of a varied set: profile, mode, min quality, prompt and its length, max_tokens, tools, max_cost, key. */
function requestOf(i: number): { req: ChatRequest; options: GwOptions; test: boolean } {
  const content = PROMPTS[i % PROMPTS.length]! + " more".repeat((i * 7) % 5 === 0 ? 0 : (i % 13) * 40);
  const req: ChatRequest = { model: PROFILES[i % PROFILES.length]!, messages: [{ role: "user", content }] };
  if (i % 3 === 1) req.max_tokens = 64;
  if (i % 11 === 5) req.max_tokens = 4_096;
  if (i % 5 === 2) req.tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }];
  const options: GwOptions = {};
  if (i % 4 === 3) options.routing = { mode: (["economy", "balanced", "quality", "max"] as const)[(i >> 2) % 4] };
  if (i % 9 === 4) options.routing = { min_quality: 0.7 };
  if (i % 8 === 6) options.max_cost = 0.01;
  return { req, options, test: i % 6 === 0 };
}

function stateOf(i: number): RequestState {
  const { req, options, test } = requestOf(i);
  const t0 = performance.now();
  const http = new Request("http://127.0.0.1/v1/chat/completions", { method: "POST" });
  const state = newState({ requestId: `req_${i}`, traceId: "trace", parentSpanId: null, auth: test ? testAuth : live, http, spans: new SpanRecorder(t0), t0 });
  state.request = req;
  state.requestedModel = req.model;
  state.options = options;
  analyze(deps, state);
  return state;
}

/** The route stage's scored candidates as a fresh, unmemoised scoring gives them. */
function freshCandidates(state: RequestState) {
  const eligible = deps.catalog.models.filter((m) => state.candidates.some((c) => c.model === m.id && !c.excluded));
  const { workload, complexity } = state.analysis!;
  const profile = state.profile!;
  if (!isProfile(profile)) throw new Error(`not a profile: ${profile}`);
  const decision = scoreUnmemoised(deps.health, deps.feedback, eligible, {
    profile, mode: state.options.routing?.mode, minQuality: state.options.routing?.min_quality,
    task: taskKindOf(state.task?.task ?? "chat"), workload, complexity, inputTokens: state.inputTokens, outputTokens: state.outputBound!,
  }, {
    test: state.auth.test, projectId: state.auth.project.id,
    credentialOf: (p) => deps.projectProviders.resolve(state.auth.project.id, p, state.auth.key.byok)?.healthKey,
  });
  // gw-auto's spread picks among the equivalents by the last message (routing/spread.ts), as the stage does.
  const spreading = profile === "gw-auto" && !state.options.routing?.mode && state.options.routing?.min_quality === undefined && decision.equivalents.length > 1;
  const ranked = spreading ? startWith(decision.ranked, spreadPick(decision.equivalents, requestSpreadHash(state.request!.messages))) : decision.ranked;
  const top = ranked[0]!;
  // Within max_cost, the estimate the cap check accepted (routing/cost.ts estimateCost).
  const needs = needsOf(state);
  const cap = state.options.max_cost;
  const cost = cap === undefined ? top.expectedCost : estimateCost(top.model, needs.inputTokens, needs.ask, needs.outputBound, cap).expected;
  if (cap !== undefined) expect(cost).toBeLessThanOrEqual(cap);
  return {
    ranked: ranked.map((r, rank) => ({
      model: r.model.id, provider: r.model.provider, rank, score: r.score, quality: r.quality,
      ...(r.meetsQuality ? {} : { below_required_quality: true }),
    })),
    expected: { cost, latency_ms: Math.round(top.latencyMs), quality: top.quality },
    requiredQuality: decision.requiredQuality,
    weights: decision.weights,
  };
}

/** Routes request i twice (the second one a memo hit) and checks both against a fresh scoring. */
function checkRequest(i: number): boolean {
  const routed: RequestState[] = [];
  for (let twice = 0; twice < 2; twice++) {
    const state = stateOf(i);
    try {
      route(deps, state);
    } catch {
      return false; // nothing scored (e.g. max_cost leaves no model): the same error either way
    }
    routed.push(state);
  }
  for (const state of routed) {
    const fresh = freshCandidates(state);
    expect(state.candidates.filter((c) => !c.excluded)).toEqual(fresh.ranked);
    expect(state.ranked.map((m) => m.id)).toEqual(fresh.ranked.map((c) => c.model));
    expect(state.expected).toEqual(fresh.expected);
    expect(state.requiredQuality).toBe(fresh.requiredQuality);
    expect(state.weights).toEqual(fresh.weights);
  }
  expect(routed[1]!.candidates).toEqual(routed[0]!.candidates);
  return true;
}

const runMany = (from: number, to: number) => {
  let scored = 0;
  for (let i = from; i < to; i++) if (checkRequest(i)) scored++;
  return scored;
};

describe("memoised routing gives the fresh scoring's answer", () => {
  test("300 varied requests, with health and feedback changing between them", () => {
    const before = memoStats(deps.health);
    expect(runMany(0, 100)).toBeGreaterThan(60);
    expect(memoStats(deps.health).hits).toBeGreaterThan(before.hits + 60);

    // Latency measured for some models: expected latency and scores move.
    deps.health.record("openai", "openai/gpt-4o-mini", { ok: true, latencyMs: 4_000 });
    deps.health.record("anthropic", "anthropic/claude-haiku-4-5", { ok: true, latencyMs: 150 });
    expect(runMany(0, 100)).toBeGreaterThan(60);

    // A provider's circuit opens: its models sink (score 0).
    for (let i = 0; i < 5; i++) deps.health.record("deepseek", "deepseek/deepseek-chat", { ok: false, failureClass: "transient" });
    expect(runMany(100, 200)).toBeGreaterThan(60);
    expect(deps.health.score("deepseek", "deepseek/deepseek-chat")).toBe(0);

    // Feedback for this project moves a model's quality.
    for (let i = 0; i < 30; i++) deps.feedback.record(live.project.id, "openai/gpt-4o-mini", "chat", 5);
    for (let i = 0; i < 30; i++) deps.feedback.record(live.project.id, "mistral/mistral-small-latest", "coding", 1);
    expect(runMany(0, 300)).toBeGreaterThan(180);

    // Two failures raise an error rate (the circuit stays closed); successes lower it again.
    deps.health.record("mistral", "mistral/mistral-small-latest", { ok: false, failureClass: "transient" });
    deps.health.record("mistral", "mistral/mistral-small-latest", { ok: false, failureClass: "transient" });
    expect(runMany(0, 50)).toBeGreaterThan(30);
    deps.health.record("mistral", "mistral/mistral-small-latest", { ok: true, latencyMs: 300 });
    expect(runMany(0, 50)).toBeGreaterThan(30);
    deps.health.record("mistral", "mistral/mistral-small-latest", { ok: true, latencyMs: 320 });
    expect(runMany(0, 50)).toBeGreaterThan(30);
  });

  test("an open circuit's cooldown running out changes the score with no outcome recorded", () => {
    for (let i = 0; i < 5; i++) deps.health.record("groq", "groq/llama-3.1-8b-instant", { ok: false, failureClass: "transient" });
    expect(runMany(300, 340)).toBeGreaterThan(20);
    expect(deps.health.score("groq", "groq/llama-3.1-8b-instant")).toBe(0);
    clock.advance(30_000);
    expect(deps.health.score("groq", "groq/llama-3.1-8b-instant")).toBeGreaterThan(0);
    expect(runMany(300, 340)).toBeGreaterThan(20);
  });

  test("the memo is bounded: as many minimum qualities as keys and more leave MEMO_KEYS entries", () => {
    for (let i = 0; i < MEMO_KEYS + 200; i++) {
      const state = stateOf(i);
      state.options = { routing: { min_quality: i / (MEMO_KEYS + 200) } };
      try {
        route(deps, state);
      } catch {
        // no model for this one: nothing memoised
      }
    }
    expect(memoStats(deps.health).size).toBe(MEMO_KEYS);
  });
});

describe("diversify (one pass per provider round, no splicing)", () => {
  /** The order as first written (issue 5 item 5): each next pick the first one left of an unused
   * provider, all providers used again once every one left is of a used provider. */
  function reference<T extends { model: { provider: string } }>(ranked: T[]): T[] {
    const out: T[] = [];
    const rest = [...ranked];
    const used = new Set<string>();
    while (rest.length > 0) {
      let i = rest.findIndex((r) => !used.has(r.model.provider));
      if (i < 0) {
        used.clear();
        i = 0;
      }
      const [next] = rest.splice(i, 1);
      used.add(next!.model.provider);
      out.push(next!);
    }
    return out;
  }

  test("gives the first-written order for 2,000 random lists", () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const models = deps.catalog.models;
    for (let k = 0; k < 2_000; k++) {
      const list = Array.from({ length: rnd(20) }, (_, i) => ({ model: models[rnd(models.length)]!, i }));
      expect(diversify(list)).toEqual(reference(list));
    }
  });
});
