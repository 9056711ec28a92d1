// Usage and cost are exact for every wire format, cached tokens included (issue 4 item 4 and its
// done-when): each upstream reports usage in its own terms; gw answers OpenAI's canonical usage
// and charges each token once, at its price.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScriptedAnthropic } from "../../helpers/scripted-anthropic.ts";
import type { ScriptedGemini } from "../../helpers/scripted-gemini.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { anthropicUpstream, geminiUpstream, openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { post, type TestGw } from "../../helpers/test-gw.ts";
import { sseData } from "../../helpers/flow-helpers.ts";

let openai: ScriptedUpstream;
let anthropic: ScriptedAnthropic;
let gemini: ScriptedGemini;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai, anthropic, gemini }, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, "sk-usage"), anthropic: anthropicUpstream({ apiKey: "sk-ant-usage" }), gemini: geminiUpstream({ apiKey: "gm-usage" }) },
  }));
  key = gw.key({ mode: "live" });
});
afterAll(() => stop());

interface Answer {
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number }; completion_tokens_details?: { reasoning_tokens?: number } };
  gw: { cost: number };
}
const ask = async (model: string, stream = false) => {
  // Cache off: each case must be metered from its upstream's own usage.
  const res = await post(`${gw.url}/chat/completions`, key, { model, stream, messages: [{ role: "user", content: "Summarise our long shared context." }] }, { "x-gw-cache": "off" });
  expect(res.status).toBe(200);
  if (!stream) return (await res.json()) as Answer;
  const lines = await sseData(res);
  const chunks = lines.filter((l) => l !== "[DONE]").map((l) => JSON.parse(l) as Partial<Answer> & { object: string });
  const usage = chunks.filter((c) => c.usage).at(-1)!.usage!;
  const summary = chunks.find((c) => c.object === "gw.summary")!;
  return { usage, gw: summary.gw! } as Answer;
};

describe("exact usage and cost per wire format", () => {
  test("OpenAI: 1,000 prompt tokens (400 cached) + 200 completion on gpt-4o-mini = $0.00024", async () => {
    openai.script({ body: {
      id: "chatcmpl-u", object: "chat.completion", created: 1, model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, prompt_tokens_details: { cached_tokens: 400 } },
    } });
    const a = await ask("openai/gpt-4o-mini");
    expect(a.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200, prompt_tokens_details: { cached_tokens: 400 } });
    expect(a.gw.cost).toBe(0.00024);
  });

  for (const stream of [false, true]) {
    test(`Anthropic${stream ? " (streamed)" : ""}: 100 uncached + 2,000 cache reads + 500 cache writes, 300 output on Sonnet 4.5 = $0.007275`, async () => {
      anthropic.script({ text: "ok", usage: { inputTokens: 100, cacheReadInputTokens: 2000, cacheCreationInputTokens: 500, outputTokens: 300 } });
      const a = await ask("anthropic/claude-sonnet-4-5", stream);
      expect(a.usage).toMatchObject({
        prompt_tokens: 2600, completion_tokens: 300, total_tokens: 2900,
        prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 500 },
      });
      // 100 x $3 + 2,000 x $0.30 + 500 x $3.75 + 300 x $15, per million
      expect(a.gw.cost).toBe(0.007275);
    });
  }

  test("Gemini: 1,000 prompt (800 cached) + 50 answer + 150 thought tokens on 2.5 Flash = $0.000584", async () => {
    gemini.script({ body: {
      candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1000, cachedContentTokenCount: 800, candidatesTokenCount: 50, thoughtsTokenCount: 150, totalTokenCount: 1200 },
      modelVersion: "gemini-2.5-flash", responseId: "r-usage",
    } });
    const a = await ask("google/gemini-2.5-flash");
    expect(a.usage).toMatchObject({
      prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200,
      prompt_tokens_details: { cached_tokens: 800 }, completion_tokens_details: { reasoning_tokens: 150 },
    });
    // 200 x $0.30 + 800 x $0.03 + 200 x $2.50, per million
    expect(a.gw.cost).toBe(0.000584);
  });

  test("an answer without usage is counted by gw, shown to the client, marked estimated, never billed $0", async () => {
    openai.script({ body: {
      id: "chatcmpl-nousage", object: "chat.completion", created: 1, model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Twelve words of answer text that a tokenizer can count for the bill." }, finish_reason: "stop" }],
    } });
    const logKey = gw.key({ mode: "live", scopes: ["chat", "requests"] });
    const res = await post(`${gw.url}/chat/completions`, logKey, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Say something countable." }] });
    const a = (await res.json()) as Answer & { gw: { request_id: string } };
    expect(a.usage.prompt_tokens).toBeGreaterThan(0);
    expect(a.usage.completion_tokens).toBeGreaterThan(5);
    expect(a.usage.total_tokens).toBe(a.usage.prompt_tokens + a.usage.completion_tokens);
    expect(a.gw.cost).toBeCloseTo((a.usage.prompt_tokens * 0.15 + a.usage.completion_tokens * 0.6) / 1e6, 10);
    await gw.drain();
    const detail = (await (await fetch(`${gw.url}/requests/${a.gw.request_id}`, { headers: { authorization: `Bearer ${logKey}` } })).json()) as { trace: { usage_estimated: boolean } };
    expect(detail.trace.usage_estimated).toBe(true);
  });
});
