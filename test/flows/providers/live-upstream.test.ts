// Live keys through an OpenAI-compatible upstream (a scripted OpenAI): what gw sends upstream, what
// it answers, how it meters and logs, streams passed through byte for byte
// (docs/api.md "Chat completions", "Extension fields", "Models"; docs/providers.md "Enabling a provider").
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import modelsFile from "../../../src/routing/models.json" with { type: "json" };
import { type ChatAnswer, chatStreamFrames, promptTokens } from "../../helpers/scripted-upstream-bodies.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { type TestGw, get, post } from "../../helpers/test-gw.ts";
import { requestDetail, sseData } from "../../helpers/flow-helpers.ts";

const OPENAI_KEY = "sk-upstream-openai-0123456789";

let upstream: ScriptedUpstream;
let gw: TestGw;
let live: string;
let liveLog: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream }, stop } = await startGw({ upstreams: { openai: openaiUpstream({}, OPENAI_KEY) } }));
  live = gw.key({ mode: "live" });
  liveLog = gw.key({ mode: "live", scopes: ["chat", "models", "requests"] });
});
afterEach(() => upstream.reset());
afterAll(() => stop());

const chat = (body: Record<string, unknown>, key = live) => post(`${gw.url}/chat/completions`, key, body);
const user = (content: string) => [{ role: "user", content }];

interface Completion {
  id: string;
  model: string;
  choices: Array<{ message: { content: string | null } }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  gw: { request_id: string; provider: string; selected_model: string; cost: number; test: boolean; fallbacks: number };
}

/** The catalog's price math: (input_price * prompt + output_price * completion) / 1e6, USD. */
function catalogCost(id: string, prompt: number, completion: number): number {
  const m = modelsFile.models.find((x) => x.id === id);
  if (!m) throw new Error(`no catalog entry for ${id}`);
  return (m.input_price * prompt + m.output_price * completion) / 1e6;
}

const upstreamBody = (i = 0): Record<string, unknown> => {
  const call = upstream.calls[i];
  if (!call) throw new Error(`the upstream got no call #${i}`);
  return call.body as Record<string, unknown>;
};

describe('what a live key sends upstream (docs/api.md "Extension fields")', () => {
  test("bare upstream model id, gw's provider key, no extension fields, unknown OpenAI fields passed", async () => {
    const res = await chat({
      model: "openai/gpt-4o-mini",
      messages: user("Tell me something about the sea."),
      seed: 42,
      user: "end-user-7",
      logprobs: true,
      routing: { mode: "economy" },
      max_cost: 1,
      optimization: { mode: "off" },
      metadata: { task: "chat", priority: "normal" },
      tags: ["flow", "live"],
      cache: { mode: "bypass" },
      gw: { step: "s1", workflow_id: "wf-1" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Completion;

    expect(upstream.callCount("/v1/chat/completions")).toBe(1);
    const call = upstream.calls[0]!;
    expect(call.path).toBe("/v1/chat/completions");
    expect(call.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(JSON.stringify(call.headers)).not.toContain(live);
    const sent = upstreamBody();
    expect(sent.model).toBe("gpt-4o-mini");
    expect(sent.messages).toEqual(user("Tell me something about the sea."));
    for (const field of ["routing", "max_cost", "optimization", "metadata", "tags", "cache", "gw"]) {
      expect(Object.keys(sent)).not.toContain(field);
    }
    expect(sent.seed).toBe(42);
    expect(sent.user).toBe("end-user-7");
    expect(sent.logprobs).toBe(true);
    expect(sent.stream).not.toBe(true);

    expect(body.model).toBe("openai/gpt-4o-mini");
    expect(body.choices[0]?.message.content).toBe("Echo: Tell me something about the sea.");
    expect(body.gw.provider).toBe("openai");
    expect(body.gw.selected_model).toBe("openai/gpt-4o-mini");
    expect(body.gw.test).toBe(false);
    expect(body.gw.fallbacks).toBe(0);
    expect(res.headers.get("x-gw-provider")).toBe("openai");
    expect(res.headers.get("x-gw-model")).toBe("openai/gpt-4o-mini");

    // The upstream's usage, priced from the catalog.
    const prompt = promptTokens(sent.messages as unknown[]);
    const completion = Math.ceil("Echo: Tell me something about the sea.".length / 4);
    expect(body.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
    expect(body.gw.cost).toBeGreaterThan(0);
    expect(body.gw.cost).toBeCloseTo(catalogCost("openai/gpt-4o-mini", prompt, completion), 12);
  });

  test("a bare upstream id (gpt-4o-mini) resolves to the catalog entry", async () => {
    const res = await chat({ model: "gpt-4o-mini", messages: user("hello bare id") });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Completion).model).toBe("openai/gpt-4o-mini");
    expect(upstreamBody().model).toBe("gpt-4o-mini");
  });

  test("max_tokens on a reasoning model goes upstream as max_completion_tokens", async () => {
    const res = await chat({ model: "openai/o4-mini", messages: user("Think briefly."), max_tokens: 64 });
    expect(res.status).toBe(200);
    const sent = upstreamBody();
    expect(sent.model).toBe("o4-mini");
    expect(sent.max_completion_tokens).toBe(64);
    expect(Object.keys(sent)).not.toContain("max_tokens");
    // A non-reasoning model keeps max_tokens.
    await chat({ model: "openai/gpt-4o-mini", messages: user("Answer briefly."), max_tokens: 64 });
    expect(upstreamBody(1).max_tokens).toBe(64);
    expect(Object.keys(upstreamBody(1))).not.toContain("max_completion_tokens");
  });
});

describe('routing with only openai enabled (docs/api.md "Models")', () => {
  test("gw-auto routes to an openai model and the trace says why others were left out", async () => {
    const res = await chat({ model: "gw-auto", messages: user("Which model answers?") }, liveLog);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Completion;
    expect(body.model).toStartWith("openai/");
    expect(body.gw.provider).toBe("openai");
    expect(upstream.callCount()).toBe(1);
    await gw.drain();
    const { body: detail } = await requestDetail(gw.url, liveLog, body.gw.request_id);
    const excluded = detail.trace.candidates.filter((c) => c.provider !== "openai");
    expect(excluded.length).toBeGreaterThan(0);
    for (const c of excluded) expect(c.excluded).toBe(`provider ${c.provider} not enabled`);
  });

  test("a model of a provider that is not enabled answers 503 no_model_available", async () => {
    const res = await chat({ model: "anthropic/claude-sonnet-4-5", messages: user("hi") });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; param: string | null } };
    expect(body.error.code).toBe("no_model_available");
    expect(upstream.callCount()).toBe(0);
  });

  test("GET /models with a live key: openai models routable, anthropic not", async () => {
    const res = await get(`${gw.url}/models`, live);
    expect(res.status).toBe(200);
    const list = (await res.json()) as { data: Array<{ id: string; gw: { routable?: boolean; virtual?: boolean } }> };
    const real = list.data.filter((m) => !m.gw.virtual);
    const openai = real.filter((m) => m.id.startsWith("openai/"));
    const anthropic = real.filter((m) => m.id.startsWith("anthropic/"));
    expect(openai.length).toBeGreaterThan(0);
    expect(anthropic.length).toBeGreaterThan(0);
    for (const m of openai) expect(m.gw.routable).toBe(true);
    for (const m of anthropic) expect(m.gw.routable).toBe(false);
  });
});

describe('stream pass-through from an OpenAI upstream (docs/api.md "Chat completions")', () => {
  test("chunks arrive unchanged, include_usage is requested, the summary is metered, then [DONE]; the log has it", async () => {
    const question = "Stream me a few words about rivers.";
    const res = await chat({ model: "openai/gpt-4o-mini", messages: user(question), stream: true }, liveLog);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const requestId = res.headers.get("x-gw-request-id")!;
    const lines = await sseData(res);

    // gw asked for the usage chunk although the client did not.
    const sent = upstreamBody();
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.model).toBe("gpt-4o-mini");

    expect(lines.at(-1)).toBe("[DONE]");
    const summary = JSON.parse(lines.at(-2)!) as { id: string; object: string; choices: unknown[]; gw: Completion["gw"] };
    const passed = lines.slice(0, -2);
    const first = JSON.parse(passed[0]!) as { id: string; created: number };
    expect(first.id).toStartWith("chatcmpl-gw");

    // Byte for byte what the scripted upstream wrote for this answer.
    const answer: ChatAnswer = {
      id: first.id, created: first.created, model: "gpt-4o-mini", content: `Echo: ${question.slice(0, 40)}`,
      toolCalls: null, promptTokens: promptTokens(sent.messages as unknown[]), toolCallIdBase: "",
    };
    const expected = chatStreamFrames(answer, true).map((f) => f.slice("data: ".length, -2));
    expect(passed).toEqual(expected);

    const usage = (JSON.parse(passed.at(-1)!) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    expect(summary.object).toBe("gw.summary");
    expect(summary.id).toBe(first.id);
    expect(summary.choices).toEqual([]);
    expect(summary.gw.request_id).toBe(requestId);
    expect(summary.gw.provider).toBe("openai");
    expect(summary.gw.test).toBe(false);
    expect(summary.gw.cost).toBeGreaterThan(0);
    expect(summary.gw.cost).toBeCloseTo(catalogCost("openai/gpt-4o-mini", usage.prompt_tokens, usage.completion_tokens), 12);

    await gw.drain();
    const { status, body: row } = await requestDetail(gw.url, liveLog, requestId);
    expect(status).toBe(200);
    expect(row.provider).toBe("openai");
    expect(row.selected_model).toBe("openai/gpt-4o-mini");
    expect(row.status).toBe(200);
    expect(row.input_tokens).toBe(usage.prompt_tokens);
    expect(row.output_tokens).toBe(usage.completion_tokens);
    expect(row.cost).toBe(summary.gw.cost);
    expect(row.ttft_ms).not.toBeNull();
    expect(row.ttft_ms!).toBeGreaterThanOrEqual(0);
    expect(row.trace.usage_estimated).toBe(false);
    const names = row.trace.spans.map((s) => s.name);
    for (const name of ["request", "authentication", "parse", "guard", "analysis", "cache", "optimization", "routing", "llm"]) expect(names).toContain(name);
    const llm = row.trace.spans.find((s) => s.name === "llm");
    expect(llm?.status).toBe("ok");
    expect(llm?.attributes?.provider).toBe("openai");
    expect(row.trace.attempts).toHaveLength(1);
    expect(row.trace.attempts[0]).toMatchObject({ provider: "openai", model: "openai/gpt-4o-mini", status: "ok" });
  });

  test("include_usage is forced on even when the client turned it off", async () => {
    const res = await chat({
      model: "openai/gpt-4o-mini", messages: user("options"), stream: true, stream_options: { include_usage: false },
    });
    await res.text();
    expect(upstreamBody().stream_options).toEqual({ include_usage: true });
  });

  test("an upstream stream without a usage chunk: usage is estimated by gw", async () => {
    // A raw SSE body without the usage chunk (as some OpenAI-compatible servers send).
    const chunk = (delta: string, finish: string | null) =>
      `data: ${JSON.stringify({
        id: "chatcmpl-nousage", object: "chat.completion.chunk", created: 1700000000, model: "gpt-4o-mini",
        choices: [{ index: 0, delta: JSON.parse(delta) as unknown, finish_reason: finish }],
      })}\n\n`;
    const sse = chunk(`{"role":"assistant","content":""}`, null) + chunk(`{"content":"Rivers flow "}`, null) +
      chunk(`{"content":"to the sea."}`, null) + chunk("{}", "stop") + "data: [DONE]\n\n";
    upstream.script({ status: 200, body: sse, headers: { "content-type": "text/event-stream" } });

    const res = await chat({ model: "openai/gpt-4o-mini", messages: user("Where do rivers go?"), stream: true }, liveLog);
    expect(res.status).toBe(200);
    const requestId = res.headers.get("x-gw-request-id")!;
    const lines = await sseData(res);
    expect(lines.at(-1)).toBe("[DONE]");
    const summary = JSON.parse(lines.at(-2)!) as { object: string; gw: Completion["gw"] };
    expect(summary.object).toBe("gw.summary");
    expect(lines.slice(0, -2)).toHaveLength(4);
    expect(summary.gw.cost).toBeGreaterThan(0);

    await gw.drain();
    const { body: row } = await requestDetail(gw.url, liveLog, requestId);
    expect(row.trace.usage_estimated).toBe(true);
    expect(row.input_tokens).toBeGreaterThan(0);
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.cost).toBeCloseTo(catalogCost("openai/gpt-4o-mini", row.input_tokens, row.output_tokens), 12);
    expect(row.cost).toBe(summary.gw.cost);
  });
});
