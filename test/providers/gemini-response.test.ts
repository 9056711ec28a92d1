// The Gemini adapter's response mapping (pure): GenerateContentResponse -> chat completion, usage,
// finish reasons, and the stream translator's events -> chunks.
import { describe, expect, test } from "bun:test";
import { mapFinishReason, mapUsage, parseResponse, toChatCompletion } from "../../src/providers/google/response.ts";
import { GeminiStreamTranslator } from "../../src/providers/google/stream.ts";
import type { GeminiPart, GenerateContentResponse, UsageMetadata } from "../../src/providers/google/wire.ts";
import type { ChatChunk } from "../../src/canonical/completion.ts";
import { failureOf } from "../helpers/upstream-failures.ts";

const MODEL = "gemini-2.5-flash";

const response = (parts: GeminiPart[], finishReason = "STOP", usageMetadata?: UsageMetadata): GenerateContentResponse => ({
  candidates: [{ content: { parts, role: "model" }, finishReason, index: 0 }],
  usageMetadata: usageMetadata ?? { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 },
  modelVersion: MODEL,
  responseId: "abc",
});

describe("toChatCompletion", () => {
  test("text parts concatenated; thought parts are not content; OpenAI's envelope", () => {
    const c = toChatCompletion(response([{ text: "thinking...", thought: true }, { text: "Hello" }, { text: ", world" }]), MODEL);
    expect(c.id).toStartWith("chatcmpl-");
    expect(c.object).toBe("chat.completion");
    expect(c.created).toBeCloseTo(Date.now() / 1000, -1);
    expect(c.model).toBe(MODEL);
    expect(c.choices).toEqual([{ index: 0, message: { role: "assistant", content: "Hello, world", refusal: null }, finish_reason: "stop", logprobs: null }]);
    expect(c.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  });

  test("function calls -> tool_calls with fresh ids and JSON arguments; finish_reason tool_calls", () => {
    const c = toChatCompletion(response([
      { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" },
      { functionCall: { name: "get_time" } },
    ]), MODEL);
    const message = c.choices[0]!.message;
    expect(message.content).toBeNull();
    expect(c.choices[0]!.finish_reason).toBe("tool_calls");
    // The signature stays behind: OpenAI rejects extra fields on a replayed tool call.
    expect(message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: expect.stringMatching(/^call_/), type: "function", function: { name: "get_time", arguments: "{}" } },
    ]);
    expect(message.tool_calls![0]!.id).not.toBe(message.tool_calls![1]!.id);
  });

  test("finish reasons: MAX_TOKENS -> length, the filter family -> content_filter, others -> stop", () => {
    expect(toChatCompletion(response([{ text: "cut" }], "MAX_TOKENS"), MODEL).choices[0]!.finish_reason).toBe("length");
    const safety = toChatCompletion({ candidates: [{ finishReason: "SAFETY", index: 0 }] }, MODEL);
    expect(safety.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: null } });
    for (const r of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]) {
      expect(mapFinishReason(r, false)).toBe("content_filter");
    }
    expect(mapFinishReason("STOP", false)).toBe("stop");
    expect(mapFinishReason("STOP", true)).toBe("tool_calls");
    expect(mapFinishReason("OTHER", false)).toBe("stop");
  });

  test("a blocked prompt is a content_filter failure that does not fall back", () => {
    const f = failureOf(() => toChatCompletion({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 4 } }, MODEL));
    expect(f.failureClass).toBe("content_filter");
    expect(f.canFallback).toBe(false);
    expect(f.message).toContain("PROHIBITED_CONTENT");
    expect(f.toGwError().code).toBe("blocked_by_policy");
  });

  test("a body that is not JSON or has no candidate is a transient upstream_error", () => {
    for (const text of ["<html>", "{}", "[1]"]) {
      const f = failureOf(() => parseResponse(text, MODEL));
      expect([f.failureClass, f.publicCode]).toEqual(["transient", "upstream_error"]);
    }
  });
});

describe("usage", () => {
  test("cached tokens are part of promptTokenCount; thoughts are added to the completion", () => {
    const meta = {
      promptTokenCount: 1200, cachedContentTokenCount: 1000, candidatesTokenCount: 40, thoughtsTokenCount: 60, totalTokenCount: 1300,
    };
    const u = mapUsage(meta);
    expect(u).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 100,
      total_tokens: 1300,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 60 },
    });
    expect(u.total_tokens).toBe(meta.totalTokenCount);
  });

  test("tool-use prompt tokens count as prompt, so the total still matches; missing usage is zero", () => {
    const u = mapUsage({ promptTokenCount: 10, toolUsePromptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 17 });
    expect([u.prompt_tokens, u.total_tokens]).toEqual([15, 17]);
    expect(mapUsage(undefined)).toMatchObject({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});

describe("GeminiStreamTranslator", () => {
  const event = (parts: object[], finishReason?: string, candidatesTokenCount = 1): object => ({
    candidates: [{ content: { parts, role: "model" }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount, totalTokenCount: 5 + candidatesTokenCount },
  });

  test("text deltas, role on the first chunk only, a finish chunk, then one usage chunk (the last usage)", () => {
    const t = new GeminiStreamTranslator(MODEL);
    const chunks: ChatChunk[] = [
      ...t.push(event([{ text: "Hel" }])),
      ...t.push(event([{ text: "pondering", thought: true }, { text: "lo" }], "STOP", 2)),
      ...t.end(),
    ];
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([{ role: "assistant", content: "Hel" }, { content: "lo" }, {}, undefined]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, null, "stop", null]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === MODEL)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  });

  test("function calls arrive whole: one delta each, indexes counted across events, finish tool_calls", () => {
    const t = new GeminiStreamTranslator(MODEL);
    const chunks = [
      ...t.push(event([{ text: "Checking. " }, { functionCall: { name: "a", args: { x: 1 } } }])),
      ...t.push(event([{ functionCall: { name: "b", args: {} } }, { functionCall: { name: "c" } }], "STOP")),
    ];
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls.map((c) => [c.index, c.function?.name, c.function?.arguments, c.type])).toEqual([
      [0, "a", '{"x":1}', "function"], [1, "b", "{}", "function"], [2, "c", "{}", "function"],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "Checking. " });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("a SAFETY finish -> content_filter; no usage seen -> no usage chunk", () => {
    const t = new GeminiStreamTranslator(MODEL);
    const chunks = [...t.push({ candidates: [{ finishReason: "SAFETY", index: 0 }] }), ...t.end()];
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual(["content_filter"]);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant" });
  });

  test("an error event, a blocked prompt and an end without finishReason throw UpstreamFailure", () => {
    const err = failureOf(() => new GeminiStreamTranslator(MODEL).push({ error: { code: 500, message: "boom", status: "INTERNAL" } }));
    expect([err.failureClass, err.publicCode]).toEqual(["transient", "upstream_error"]);
    const blocked = failureOf(() => new GeminiStreamTranslator(MODEL).push({ promptFeedback: { blockReason: "SAFETY" } }));
    expect(blocked.failureClass).toBe("content_filter");
    const t = new GeminiStreamTranslator(MODEL);
    t.push(event([{ text: "half" }]));
    const cut = failureOf(() => t.end());
    expect([cut.failureClass, cut.publicCode]).toEqual(["transient", "upstream_error"]);
  });
});
