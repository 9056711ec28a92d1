// The Anthropic adapter end to end against the scripted Messages API: complete() and stream()
// through the real transport, tool calls, usage with cache numbers, errors, cuts and aborts.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { anthropicProvider } from "../../src/providers/anthropic/index.ts";
import type { ChatChunk, ChunkEvent } from "../../src/canonical/completion.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";
import type { Provider, ProviderCall } from "../../src/providers/types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import { costOf } from "../../src/routing/cost.ts";
import { type ScriptedAnthropic, startScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { weatherTool } from "../fixtures/tools.ts";
import { rejection } from "../helpers/upstream-failures.ts";

function catalogModel(id: string): CatalogModel {
  const model = buildCatalog().get(id);
  if (!model) throw new Error(`catalog lacks ${id}`);
  return model;
}
const model = catalogModel("anthropic/claude-haiku-4-5");

let upstream: ScriptedAnthropic;
let provider: Provider;

beforeAll(async () => {
  upstream = await startScriptedAnthropic();
  provider = anthropicProvider("anthropic", { baseUrl: upstream.url, apiKey: "sk-ant-test" });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

function call(request: Partial<ChatRequest>, m: CatalogModel = model): ProviderCall {
  const controller = new AbortController();
  const messages: ChatMessage[] = [{ role: "user", content: "Hello there" }];
  return { model: m, request: { model: m.id, messages, ...request }, controller, signal: controller.signal, attempt: 0 };
}

async function collect(events: AsyncIterable<ChunkEvent>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const e of events) {
    expect(e.raw).toBeUndefined(); // translated, never passed through
    chunks.push(e.chunk);
  }
  return chunks;
}

/** Reassembles OpenAI tool-call deltas per index, as an OpenAI client does. */
function toolCallsOf(chunks: ChatChunk[]): Array<{ id: string; name: string; arguments: string }> {
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const c of chunks) {
    for (const t of c.choices[0]?.delta.tool_calls ?? []) {
      const slot = (calls[t.index] ??= { id: "", name: "", arguments: "" });
      if (t.id) slot.id = t.id;
      if (t.function?.name) slot.name += t.function.name;
      slot.arguments += t.function?.arguments ?? "";
    }
  }
  return calls;
}

describe("complete()", () => {
  test("a text answer, and the request as Anthropic receives it", async () => {
    const res = await provider.complete(call({
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello there" }],
      temperature: 0.3,
      metadata: { team: "x" },
    }));
    expect(res.id).toStartWith("chatcmpl-msg_");
    expect(res).toMatchObject({ object: "chat.completion", model: "claude-haiku-4-5" });
    expect(res.choices[0]?.message).toEqual({ role: "assistant", content: "Echo: Hello there", refusal: null });
    expect(res.choices[0]?.finish_reason).toBe("stop");
    expect(res.usage.total_tokens).toBe(res.usage.prompt_tokens + res.usage.completion_tokens);
    const sent = upstream.calls[0];
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-test");
    expect(sent?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent?.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 4096,
      system: [{ type: "text", text: "Be brief." }],
      messages: [{ role: "user", content: [{ type: "text", text: "Hello there" }] }],
      temperature: 0.3,
    });
  });

  test("tool calls, then the tool results sent back in the next turn (paired by tool_use_id)", async () => {
    upstream.script({ toolUses: [{ name: "get_weather", input: { city: "Paris", days: 2 } }, { name: "get_weather", input: { city: "Oslo", days: 1 } }] });
    const first = await provider.complete(call({ tools: [weatherTool], messages: [{ role: "user", content: "Paris and Oslo?" }] }));
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    const calls = first.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ city: "Paris", days: 2 }, { city: "Oslo", days: 1 }]);
    expect(first.choices[0]?.message.content).toBeNull();

    upstream.script({ text: "Paris is warmer." });
    const messages: ChatMessage[] = [
      { role: "user", content: "Paris and Oslo?" },
      { role: "assistant", content: null, tool_calls: calls },
      ...calls.map((c, i): ChatMessage => ({ role: "tool", tool_call_id: c.id, content: i === 0 ? "18C" : "4C" })),
    ];
    const second = await provider.complete(call({ tools: [weatherTool], messages }));
    expect(second.choices[0]?.message.content).toBe("Paris is warmer.");
  });

  test("cache reads and writes count in prompt_tokens and price at their own rates", async () => {
    upstream.script({ text: "ok", usage: { inputTokens: 10, cacheReadInputTokens: 2000, cacheCreationInputTokens: 300, outputTokens: 20 } });
    const res = await provider.complete(call({}));
    expect(res.usage).toEqual({
      prompt_tokens: 2310, completion_tokens: 20, total_tokens: 2330, prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 300 },
    });
    const details = res.usage.prompt_tokens_details;
    const cost = costOf(model, {
      promptTokens: res.usage.prompt_tokens, completionTokens: res.usage.completion_tokens,
      cachedTokens: details?.cached_tokens ?? 0, cacheWriteTokens: details?.cache_write_tokens ?? 0,
    });
    const expected = (10 * model.input_price + 2000 * (model.cached_input_price ?? 0) + 300 * (model.cache_write_price ?? 0) + 20 * model.output_price) / 1e6;
    expect(cost).toBeCloseTo(expected, 12);
  });

  test("finish_reason: max_tokens is length, a refusal is content_filter", async () => {
    expect((await provider.complete(call({ max_tokens: 1 }))).choices[0]?.finish_reason).toBe("length");
    upstream.script({ text: "I can't help with that.", stopReason: "refusal" });
    expect((await provider.complete(call({}))).choices[0]?.finish_reason).toBe("content_filter");
  });
});

describe("stream()", () => {
  test("text: role first, content deltas, finish chunk, then the usage chunk", async () => {
    const chunks = await collect(await provider.stream(call({ messages: [{ role: "user", content: "stream these words" }] })));
    for (const c of chunks) expect(c).toMatchObject({ object: "chat.completion.chunk", model: "claude-haiku-4-5" });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Echo: stream these words");
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(2);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(upstream.calls[0]?.body).toMatchObject({ stream: true });
  });

  test("parallel tool calls arrive as OpenAI tool-call deltas with distinct indexes", async () => {
    upstream.script({
      text: "Checking both.",
      toolUses: [{ name: "get_weather", input: { city: "Paris", days: 3 } }, { name: "get_weather", input: { city: "Oslo", days: 1 } }],
    });
    const chunks = await collect(await provider.stream(call({ tools: [weatherTool] })));
    const calls = toolCallsOf(chunks);
    expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_weather"]);
    expect(calls.map((c) => JSON.parse(c.arguments))).toEqual([{ city: "Paris", days: 3 }, { city: "Oslo", days: 1 }]);
    expect(calls[0]?.id).toStartWith("toolu_");
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(chunks.filter((c) => (c.choices[0]?.delta.tool_calls?.length ?? 0) > 0).length).toBeGreaterThan(4); // incremental
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Checking both.");
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  test("stop sequences finish with stop, max_tokens with length; cache usage in the final chunk", async () => {
    upstream.script({ usage: { cacheReadInputTokens: 500 } });
    const stopped = await collect(await provider.stream(call({ stop: ["there"] })));
    expect(stopped.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Echo: Hello ");
    expect(stopped.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(stopped.at(-1)?.usage?.prompt_tokens_details?.cached_tokens).toBe(500);
    const long = await collect(await provider.stream(call({ max_tokens: 1 })));
    expect(long.at(-2)?.choices[0]?.finish_reason).toBe("length");
  });
});

describe("failures", () => {
  test("errors before the stream reject stream() with their class: 429, 529, 400 too long, bad key", async () => {
    upstream.script({ status: 429, headers: { "retry-after": "9" } });
    const limited = await rejection(provider.stream(call({})));
    expect([limited.failureClass, limited.retryAfter, limited.upstreamStatus]).toEqual(["rate_limit", 9, 429]);
    upstream.script({ status: 529 });
    const overloaded = await rejection(provider.stream(call({})));
    expect([overloaded.failureClass, overloaded.toGwError().code]).toEqual(["transient", "provider_unavailable"]);
    upstream.script({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum" } } });
    expect((await rejection(provider.complete(call({})))).failureClass).toBe("context_length");
    const wrongKey = anthropicProvider("anthropic", { baseUrl: upstream.url, apiKey: "sk-ant-wrong" });
    expect((await rejection(wrongKey.stream(call({})))).failureClass).toBe("credential");
  });

  test("a stream cut mid-way rejects the iteration with an upstream error", async () => {
    upstream.script({ cutAfterEvents: 5 });
    const events = await provider.stream(call({ messages: [{ role: "user", content: "one two three four five six" }] }));
    const seen: ChatChunk[] = [];
    const failure = await rejection((async () => {
      for await (const e of events) seen.push(e.chunk);
    })());
    expect([failure.failureClass, failure.toGwError().code]).toEqual(["transient", "upstream_error"]);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((c) => c.usage)).toBe(false);
  });

  test("an `event: error` mid-stream rejects the iteration (overloaded: provider_unavailable)", async () => {
    upstream.script({ streamError: { afterEvents: 4, type: "overloaded_error", message: "Overloaded" } });
    const events = await provider.stream(call({}));
    const failure = await rejection(collect(events));
    expect([failure.failureClass, failure.toGwError().code]).toEqual(["transient", "provider_unavailable"]);
  });
});

describe("abort via call.controller", () => {
  test("an abort while waiting for headers rejects and the upstream sees the client leave", async () => {
    upstream.script({ delayMs: 5_000 });
    const c = call({});
    const pending = provider.complete(c);
    await upstream.until("calls", 1);
    c.controller.abort();
    expect((await rejection(pending)).failureClass).toBe("transient");
    await upstream.until("aborted", 1);
    expect(upstream.aborted).toBe(1);
  });

  test("an abort mid-stream ends the iteration and the upstream sees the connection close", async () => {
    const paced = await startScriptedAnthropic({ chunkDelayMs: 20 });
    const p = anthropicProvider("anthropic", { baseUrl: paced.url, apiKey: "sk-ant-test" });
    const c = call({ messages: [{ role: "user", content: "a b c d e f g h i j k l" }] });
    const events = await p.stream(c);
    let n = 0;
    const failure = await rejection((async () => {
      for await (const _ of events) if (++n === 2) c.controller.abort();
    })());
    expect(failure.message).toContain("cancelled");
    await paced.until("aborted", 1);
    expect(paced.aborted).toBe(1);
    await paced.stop();
  });
});
