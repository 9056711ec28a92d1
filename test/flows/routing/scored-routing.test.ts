// Scored routing, end to end (issue 5 done-when): what the router picks for typical requests, and a
// property test that no chosen model's predicted upper-bound cost exceeds max_cost. Test keys: every
// catalog model is routable and answers are simulated, so the router's choice is what is measured.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateProject } from "../../../src/admin/projects.ts";
import { countMessageTokens } from "../../../src/analysis/tokens.ts";
import { maxCostOf } from "../../../src/routing/cost.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { weatherTool } from "../../fixtures/tools.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

interface Answer { model: string; gw: { request_id: string } }
const ask = async (body: Record<string, unknown>): Promise<{ status: number; body: Answer }> => {
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, body);
  return { status: res.status, body: (await res.json()) as Answer };
};
const model = (id: string) => gw.deps.catalog.get(id)!;
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("what gw-auto picks", () => {
  test("a coding request goes to a strong coding model", async () => {
    const { body } = await ask({ messages: [{ role: "user", content: "Refactor this TypeScript function to remove the bug in its loop and add tests:\n```ts\nfunction sum(xs: number[]) { let s = 0; for (let i = 0; i <= xs.length; i++) s += xs[i]; return s; }\n```" }] });
    expect(model(body.model).quality.coding).toBeGreaterThanOrEqual(0.85);
  });

  test("a one-line greeting goes to a cheap, fast model", async () => {
    const { body } = await ask({ messages: [{ role: "user", content: "hi there!" }] });
    const m = model(body.model);
    // One of the cheap models gw-auto spreads over (docs/routing.md "Score"), not always the cheapest.
    expect(m.input_price).toBeLessThanOrEqual(0.3);
    expect(m.output_price).toBeLessThanOrEqual(0.6);
  });

  test("a request with tools goes only to tool-capable models, every ranked candidate included", async () => {
    const { body } = await ask({ messages: [{ role: "user", content: "What is the weather in Oslo?" }], tools: [weatherTool] });
    expect(model(body.model).capabilities.tools).toBe(true);
    await gw.drain();
    const detail = await (await fetch(`${gw.url}/requests/${body.gw.request_id}`, { headers: { authorization: `Bearer ${gw.testKey}` } })).json() as { trace: { candidates: Array<{ model: string; rank: number | null; excluded?: string }> } };
    const reasons = (detail.trace as unknown as { reasons: string[] }).reasons;
    expect(reasons[0]).toStartWith("required quality");
    expect(reasons.some((r) => /^\d+ excluded: no tool support$/.test(r))).toBe(true);
    for (const c of detail.trace.candidates) {
      if (c.rank !== null) expect(model(c.model).capabilities.tools).toBe(true);
      else if (!model(c.model).capabilities.tools) expect(c.excluded).toBe("no tool support");
    }
  });

  test("an image goes only to vision models", async () => {
    const { body } = await ask({ messages: [{ role: "user", content: [{ type: "text", text: "What is in this picture?" }, { type: "image_url", image_url: { url: PNG } }] }] });
    expect(model(body.model).capabilities.vision).toBe(true);
  });

  test("a 150k-token prompt goes only to a model with that context window", async () => {
    const content = "lorem ".repeat(150_000);
    const { status, body } = await ask({ messages: [{ role: "user", content }], max_tokens: 500 });
    expect(status).toBe(200);
    expect(model(body.model).context_window).toBeGreaterThanOrEqual(150_500);
  });
});

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("max_cost (property test)", () => {
  test("across 1,000 random requests no chosen model's predicted upper-bound cost exceeds max_cost", async () => {
    const r = rng(20261122);
    const words = ["refactor", "translate", "summarise", "why", "poem", "invoice", "the", "data", "prove", "sentiment", "hello"];
    const profiles = ["gw-auto", "gw-fast", "gw-balanced", "gw-quality", "gw-max", "gw-reasoning", "gw-code"];
    let answered = 0;
    for (let i = 0; i < 1000; i++) {
      const length = Math.floor(r() ** 3 * 3000) + 1;
      const content = Array.from({ length }, () => words[Math.floor(r() * words.length)]).join(" ");
      const maxCost = 10 ** (-6 + r() * 5); // $0.000001 .. $0.1
      const maxTokens = Math.floor(r() * 4000) + 1;
      const messages = [{ role: "user", content }];
      const req: Record<string, unknown> = { model: profiles[i % profiles.length], messages, max_cost: maxCost, max_tokens: maxTokens };
      if (r() < 0.2) req.tools = [weatherTool];
      const { status, body } = await ask(req);
      if (status === 503) continue; // nothing fits the cap: allowed, and said so
      expect(status).toBe(200);
      answered++;
      const bound = maxCostOf(model(body.model), countMessageTokens(messages as never), maxTokens);
      if (bound > maxCost) throw new Error(`request ${i}: ${body.model} could cost ${bound} > max_cost ${maxCost}`);
    }
    // The caps span five orders of magnitude: many requests must have been served, not refused.
    expect(answered).toBeGreaterThan(300);
  }, 60_000);
});

describe("project provider restrictions (policy allowed_providers / blocked_providers)", () => {
  test("only allowed providers are routed to; blocked ones are excluded with the reason", async () => {
    const project = gw.newProject("restricted");
    updateProject(gw.deps.repos.projects, project, { policy: { allowed_providers: ["anthropic", "google"], blocked_providers: ["google"] } }, []);
    const key = gw.key({ projectId: project, scopes: ["chat", "requests"] });
    const res = await post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content: "hello" }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Answer;
    expect(model(body.model).provider).toBe("anthropic");
    await gw.drain();
    const detail = await (await fetch(`${gw.url}/requests/${body.gw.request_id}`, { headers: { authorization: `Bearer ${key}` } })).json() as { trace: { candidates: Array<{ model: string; rank: number | null; excluded?: string }> } };
    const reasons = new Set(detail.trace.candidates.filter((c) => c.rank === null).map((c) => c.excluded));
    expect(reasons.has("provider google blocked by the project's policy")).toBe(true);
    expect(reasons.has("provider openai not in the project's allowed_providers")).toBe(true);
    for (const c of detail.trace.candidates) if (c.rank !== null) expect(model(c.model).provider).toBe("anthropic");
  });
});

describe("session stickiness (X-Gw-Session, metadata.session_id, gw.session_id)", () => {
  const detail = async (key: string, id: string) =>
    ((await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { trace: { session: { id: string; pinned: string | null; sticky: boolean; reason: string } | null } }).trace;

  test("a conversation stays on its first model even when a later turn alone would route elsewhere", async () => {
    const first = await post(`${gw.url}/chat/completions`, gw.testKey, { messages: [{ role: "user", content: "hi there!" }] }, { "x-gw-session": "conv-1", "x-gw-cache": "off" });
    const firstModel = ((await first.json()) as Answer).model;
    const coding = { messages: [{ role: "user", content: "Refactor this TypeScript function to remove the bug in its loop:\n```ts\nfunction f(xs: number[]) { for (let i = 0; i <= xs.length; i++) {} }\n```" }] };
    // Cache off: these turns must be routed (other tests here ask the same question).
    const alone = ((await (await post(`${gw.url}/chat/completions`, gw.testKey, coding, { "x-gw-cache": "off" })).json()) as Answer).model;
    expect(alone).not.toBe(firstModel); // the precondition that makes this test mean something
    const second = await post(`${gw.url}/chat/completions`, gw.testKey, { ...coding, metadata: { session_id: "conv-1" } }, { "x-gw-cache": "off" });
    const body = (await second.json()) as Answer;
    expect(body.model).toBe(firstModel);
    await gw.drain();
    expect(await detail(gw.testKey, body.gw.request_id)).toMatchObject({ session: { id: "conv-1", pinned: firstModel, sticky: true } });
  });

  test("a turn the pinned model cannot serve routes anew and says why; another project's session is its own", async () => {
    const first = await post(`${gw.url}/chat/completions`, gw.testKey, { messages: [{ role: "user", content: "hello" }], gw: { session_id: "conv-2" } });
    const pinned = ((await first.json()) as Answer).model;
    // Needs a million-token window: the pinned cheap model may not have it.
    const big = await post(`${gw.url}/chat/completions`, gw.testKey, { messages: [{ role: "user", content: "lorem ".repeat(150_000) }], max_tokens: 100, gw: { session_id: "conv-2" } });
    const bigBody = (await big.json()) as Answer;
    await gw.drain();
    const trace = await detail(gw.testKey, bigBody.gw.request_id);
    expect(model(pinned).context_window).toBeLessThan(150_100); // precondition: the greeting's cheap model
    expect(trace.session).toMatchObject({ id: "conv-2", pinned, sticky: false, reason: "pinned model not eligible for this turn" });
    const other = gw.newProject("other-sessions");
    const otherKey = gw.key({ projectId: other, scopes: ["chat", "requests"] });
    const res = await post(`${gw.url}/chat/completions`, otherKey, { messages: [{ role: "user", content: "hello" }] }, { "x-gw-session": "conv-2" });
    const otherBody = (await res.json()) as Answer;
    await gw.drain();
    expect((await detail(otherKey, otherBody.gw.request_id)).session).toMatchObject({ id: "conv-2", pinned: null, reason: "new session" });
  });
});

describe("session id limits", () => {
  test("a session id over 200 characters answers 400 invalid_request naming it, header or body", async () => {
    const long = "s".repeat(201);
    const viaHeader = await post(`${gw.url}/chat/completions`, gw.testKey, { messages: [{ role: "user", content: "hi" }] }, { "x-gw-session": long });
    expect(viaHeader.status).toBe(400);
    expect(((await viaHeader.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: "invalid_request", param: "X-Gw-Session" });
    // Also with an explicit model, where stickiness does not apply: the id is checked on parsing.
    const viaBody = await post(`${gw.url}/chat/completions`, gw.testKey, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], metadata: { session_id: long } });
    expect(viaBody.status).toBe(400);
    expect(((await viaBody.json()) as { error: { param: string } }).error.param).toBe("session_id");
  });
});
