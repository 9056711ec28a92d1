// The Anthropic adapter's pure mappings: OpenAI chat request -> Messages API request, Message ->
// chat completion (with canonical usage), stream events -> chunks, and errors -> failure classes.
import { describe, expect, test } from "bun:test";
import { parseError, streamError } from "../../src/providers/anthropic/errors.ts";
import { buildRequest, toMessagesBody } from "../../src/providers/anthropic/request.ts";
import { finishReason, parseResponse, toCompletion, toUsage } from "../../src/providers/anthropic/response.ts";
import { StreamTranslator } from "../../src/providers/anthropic/stream.ts";
import type { ErrorCode } from "../../src/errors/codes.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";
import type { FailureClass } from "../../src/canonical/failure.ts";
import type { ProviderCall } from "../../src/providers/types.ts";
import { UpstreamFailure } from "../../src/canonical/failure.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import { weatherTool } from "../fixtures/tools.ts";

function haiku(): CatalogModel {
  const model = buildCatalog().get("anthropic/claude-haiku-4-5");
  if (!model) throw new Error("catalog lacks anthropic/claude-haiku-4-5");
  return model;
}
const model = haiku();
const body = (request: Partial<ChatRequest>, m: CatalogModel = model) =>
  toMessagesBody({ model: m, request: { model: "x", messages: [{ role: "user", content: "hi" }], ...request } });
const PNG = "iVBORw0KGgo=";

describe("request mapping: messages", () => {
  test("system and developer messages are lifted to top-level system text blocks, in order", () => {
    const b = body({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
        { role: "developer", content: [{ type: "text", text: "Use metric" }, { type: "text", text: "units." }] },
      ],
    });
    expect(b.system).toEqual([{ type: "text", text: "Be brief." }, { type: "text", text: "Use metric\nunits." }]);
    expect(b.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  test("image parts: data: URLs become base64 sources, http(s) URLs url sources", () => {
    const b = body({
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
          { type: "image_url", image_url: "https://example.com/cat.jpg" },
        ],
      }],
    });
    expect(b.messages[0]?.content).toEqual([
      { type: "text", text: "What is in these?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
    ]);
  });

  test("assistant tool_calls become tool_use blocks; empty or invalid arguments become {}", () => {
    const b = body({
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","days":2}' } },
            { id: "call_2", type: "function", function: { name: "get_time", arguments: "" } },
            { id: "call_3", type: "function", function: { name: "get_time", arguments: "{not json" } },
          ],
        },
      ],
    });
    expect(b.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris", days: 2 } },
        { type: "tool_use", id: "call_2", name: "get_time", input: {} },
        { type: "tool_use", id: "call_3", name: "get_time", input: {} },
      ],
    });
  });

  test("consecutive tool results merge into one user message, followed by the next user text", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "weather in Paris and Oslo?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "toolu_a", type: "function", function: { name: "get_weather", arguments: "{}" } },
          { id: "toolu_b", type: "function", function: { name: "get_weather", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "toolu_a", content: "18C" },
      { role: "tool", tool_call_id: "toolu_b", content: [{ type: "text", text: "4C" }] },
      { role: "user", content: "Which is warmer?" },
    ];
    const b = body({ messages });
    expect(b.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(b.messages[1]?.content.map((c) => c.type)).toEqual(["tool_use", "tool_use"]);
    expect(b.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", content: "18C" },
      { type: "tool_result", tool_use_id: "toolu_b", content: [{ type: "text", text: "4C" }] },
      { type: "text", text: "Which is warmer?" },
    ]);
  });

  test("consecutive same-role messages merge so turns alternate; empty messages are dropped", () => {
    const b = body({
      messages: [
        { role: "user", content: "one" },
        { role: "user", content: [{ type: "text", text: "two" }] },
        { role: "assistant", content: "a" },
        { role: "assistant", content: "" },
        { role: "assistant", content: "b" },
        { role: "user", content: "three" },
      ],
    });
    expect(b.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      { role: "user", content: [{ type: "text", text: "three" }] },
    ]);
  });
});

describe("request mapping: parameters", () => {
  test("tools get an input_schema (default: an empty object schema)", () => {
    const b = body({ tools: [weatherTool, { type: "function", function: { name: "now" } }] });
    expect(b.tools).toEqual([
      { name: "get_weather", description: "Weather for a city", input_schema: weatherTool.function.parameters },
      { name: "now", input_schema: { type: "object", properties: {} } },
    ]);
    expect(b.tool_choice).toBeUndefined();
  });

  test("tool_choice: auto, required, a named function, none; parallel_tool_calls false; no tools, no choice", () => {
    const tools = [weatherTool];
    expect(body({ tools, tool_choice: "auto" }).tool_choice).toEqual({ type: "auto" });
    expect(body({ tools, tool_choice: "required" }).tool_choice).toEqual({ type: "any" });
    expect(body({ tools, tool_choice: { type: "function", function: { name: "get_weather" } } }).tool_choice)
      .toEqual({ type: "tool", name: "get_weather" });
    expect(body({ tools, tool_choice: "none" }).tool_choice).toEqual({ type: "none" });
    expect(body({ tools, parallel_tool_calls: false }).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(body({ tools, tool_choice: "required", parallel_tool_calls: false }).tool_choice)
      .toEqual({ type: "any", disable_parallel_tool_use: true });
    expect(body({ tool_choice: "required" }).tool_choice).toBeUndefined();
  });

  test("stop (string or array) becomes stop_sequences; null is omitted", () => {
    expect(body({ stop: "END" }).stop_sequences).toEqual(["END"]);
    expect(body({ stop: ["a", "b"] }).stop_sequences).toEqual(["a", "b"]);
    expect(body({ stop: null }).stop_sequences).toBeUndefined();
  });

  test("max_tokens: max_completion_tokens, then max_tokens, else min(4096, model max output)", () => {
    expect(body({}).max_tokens).toBe(4096);
    expect(body({}, { ...model, max_output_tokens: 1000 }).max_tokens).toBe(1000);
    expect(body({ max_tokens: 50 }).max_tokens).toBe(50);
    expect(body({ max_tokens: 50, max_completion_tokens: 70 }).max_tokens).toBe(70);
  });

  test("temperature is clamped to Anthropic's 0..1 and wins over top_p; top_p alone passes", () => {
    expect(body({ temperature: 1.7 }).temperature).toBe(1);
    const both = body({ temperature: 0.2, top_p: 0.9 });
    expect(both.temperature).toBe(0.2);
    expect(both.top_p).toBeUndefined();
    expect(body({ top_p: 0.9 }).top_p).toBe(0.9);
  });

  test("JSON mode becomes a system instruction, with the schema for json_schema", () => {
    const object = body({ response_format: { type: "json_object" } });
    expect(object.system?.at(-1)?.text).toContain("single JSON object only");
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const withSchema = body({
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
      response_format: { type: "json_schema", json_schema: { name: "a", schema } },
    });
    expect(withSchema.system?.[0]?.text).toBe("Be brief.");
    expect(withSchema.system?.[1]?.text).toContain(JSON.stringify(schema));
    expect(body({ response_format: { type: "text" } }).system).toBeUndefined();
  });

  test("gw extension fields and OpenAI-only fields never go upstream", () => {
    const b = body({
      stream: true, temperature: 0.5, routing: { profile: "gw-fast" }, max_cost: 0.1, optimization: { level: 1 },
      metadata: { a: 1 }, tags: ["t"], cache: { mode: "off" }, gw: {}, n: 2, seed: 7, user: "u1", logprobs: true,
      stream_options: { include_usage: true }, frequency_penalty: 0.5,
    });
    expect(Object.keys(b).sort()).toEqual(["max_tokens", "messages", "model", "stream", "temperature"]);
    expect(b.model).toBe("claude-haiku-4-5");
  });

  test("buildRequest: POST <base>/v1/messages with x-api-key and anthropic-version 2023-06-01", () => {
    const call = { model, request: { model: "x", messages: [{ role: "user", content: "hi" }], stream: true } } as ProviderCall;
    const req = buildRequest(call, { baseUrl: "https://api.anthropic.com/", apiKey: "sk-ant-1" });
    expect(req.url).toBe("https://api.anthropic.com/v1/messages");
    expect(req.headers).toEqual({
      "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "sk-ant-1", accept: "text/event-stream",
    });
    expect(JSON.parse(req.body)).toMatchObject({ model: "claude-haiku-4-5", stream: true });
    expect(buildRequest(call, { baseUrl: "http://h", apiKey: null }).headers["x-api-key"]).toBeUndefined();
  });
});

describe("response mapping", () => {
  const message = {
    id: "msg_01abc",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5",
    content: [
      { type: "thinking", thinking: "hmm", signature: "s" },
      { type: "text", text: "Let me check. " },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      { type: "text", text: "One moment." },
      { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Oslo" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 12, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 30 },
  };

  test("text blocks concatenate, tool_use blocks become tool_calls, ids keep Anthropic's", () => {
    const c = toCompletion(message, "fallback", 1_700_000_000_000);
    expect(c).toMatchObject({ id: "chatcmpl-msg_01abc", object: "chat.completion", created: 1_700_000_000, model: "claude-haiku-4-5" });
    expect(c.choices).toEqual([{
      index: 0,
      finish_reason: "tool_calls",
      logprobs: null,
      message: {
        role: "assistant",
        content: "Let me check. One moment.",
        refusal: null,
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "toolu_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      },
    }]);
  });

  test("usage: prompt_tokens adds cache reads and writes to input_tokens, broken out in details", () => {
    expect(toUsage(message.usage)).toEqual({
      prompt_tokens: 1212,
      completion_tokens: 30,
      total_tokens: 1242,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
    });
    expect(toUsage({ input_tokens: 5, output_tokens: 1, cache_read_input_tokens: null })).toMatchObject({ prompt_tokens: 5, total_tokens: 6 });
  });

  test("finish_reason per stop_reason; content null without text", () => {
    expect(["end_turn", "stop_sequence", "max_tokens", "tool_use", "refusal", null].map(finishReason))
      .toEqual(["stop", "stop", "length", "tool_calls", "content_filter", "stop"]);
    const onlyTool = toCompletion({ ...message, content: [message.content[2]] }, "m");
    expect(onlyTool.choices[0]?.message.content).toBeNull();
  });

  test("a body that is not a Message is an upstream error", () => {
    for (const text of ["<html>", '{"choices":[]}']) {
      const err = (() => {
        try {
          parseResponse(text, "anthropic", "m");
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(UpstreamFailure);
      expect((err as UpstreamFailure).toGwError().code).toBe("upstream_error");
    }
  });
});

describe("stream translation", () => {
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data: JSON.stringify({ type: event, ...data }) });

  test("events become chunks: role first, tool call indexes count tool_use blocks only, usage last", () => {
    const t = new StreamTranslator("anthropic", "fallback", 1_700_000_000_000);
    const events = [
      ev("message_start", { message: { id: "msg_9", model: "claude-x", usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 1 } } }),
      ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      { event: "ping", data: '{"type": "ping"}' },
      ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Checking." } }),
      ev("content_block_stop", { index: 0 }),
      ev("content_block_start", { index: 1, content_block: { type: "tool_use", id: "toolu_a", name: "get_weather", input: {} } }),
      ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: "" } }),
      ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '{"city":' } }),
      ev("content_block_start", { index: 2, content_block: { type: "tool_use", id: "toolu_b", name: "get_time", input: {} } }),
      ev("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: "{}" } }),
      ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '"Oslo"}' } }),
      ev("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 42 } }),
      ev("message_stop", {}),
    ];
    const chunks = events.flatMap((e) => t.translate(e));
    expect(t.done).toBe(true);
    for (const c of chunks) expect(c).toMatchObject({ id: "chatcmpl-msg_9", object: "chat.completion.chunk", created: 1_700_000_000, model: "claude-x" });
    const deltas = chunks.map((c) => c.choices[0]?.delta ?? null);
    expect(deltas).toEqual([
      { role: "assistant", content: "" },
      { content: "Checking." },
      { tool_calls: [{ index: 0, id: "toolu_a", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 1, id: "toolu_b", type: "function", function: { name: "get_time", arguments: "" } }] },
      { tool_calls: [{ index: 1, function: { arguments: "{}" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] },
      {},
      null,
    ]);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 100, completion_tokens: 42, total_tokens: 142, prompt_tokens_details: { cached_tokens: 90, cache_write_tokens: 0 },
    });
  });

  test("message_delta totals replace message_start's; an error event throws its failure class", () => {
    const t = new StreamTranslator("anthropic", "m");
    t.translate(ev("message_start", { message: { id: "msg_1", usage: { input_tokens: 3, output_tokens: 1 } } }));
    t.translate(ev("message_delta", { delta: { stop_reason: "max_tokens" }, usage: { input_tokens: 5, output_tokens: 9 } }));
    const [finish, usage] = t.translate(ev("message_stop", {}));
    expect(finish?.choices[0]?.finish_reason).toBe("length");
    expect(usage?.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 9 });
    const overloaded = () => t.translate({ event: "error", data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' });
    expect(overloaded).toThrow(UpstreamFailure);
  });
});

describe("error mapping (Anthropic HTTP errors)", () => {
  const err = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    parseError(status, JSON.stringify({ type: "error", error: { type, message } }), new Headers(headers), "anthropic");

  test("each status maps to its failure class and public code", () => {
    const cases: Array<[number, string, FailureClass, ErrorCode]> = [
      [429, "rate_limit_error", "rate_limit", "rate_limited"],
      [401, "authentication_error", "credential", "upstream_error"],
      [403, "permission_error", "credential", "upstream_error"],
      [404, "not_found_error", "model_gone", "upstream_error"],
      [400, "invalid_request_error", "caller", "invalid_request"],
      [413, "request_too_large", "caller", "invalid_request"],
      [529, "overloaded_error", "transient", "provider_unavailable"],
      [503, "api_error", "transient", "provider_unavailable"],
      [500, "api_error", "transient", "upstream_error"],
      [408, "timeout_error", "timeout", "timeout"],
      [504, "timeout_error", "timeout", "timeout"],
    ];
    for (const [status, type, failureClass, code] of cases) {
      const f = err(status, type, "msg");
      expect([status, f.failureClass, f.toGwError().code]).toEqual([status, failureClass, code]);
      expect(f.upstreamStatus).toBe(status);
    }
  });

  test("429 keeps Retry-After; a too-long prompt is context_length; the upstream's words go in detail", () => {
    expect(err(429, "rate_limit_error", "slow down", { "retry-after": "12" }).retryAfter).toBe(12);
    const long = err(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum");
    expect(long.failureClass).toBe("context_length");
    expect(long.detail).toBe("Provider said: prompt is too long: 210000 tokens > 200000 maximum");
    expect(long.canFallback).toBe(true);
    expect(err(400, "invalid_request_error", "messages: field required").canFallback).toBe(false);
    expect(err(401, "authentication_error", "invalid x-api-key").detail).toBeUndefined();
    expect(parseError(502, "<html>bad gateway</html>", new Headers(), "anthropic").toGwError().code).toBe("upstream_error");
  });

  test("mid-stream error events: overloaded is unavailable, others upstream_error", () => {
    const over = streamError('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "anthropic");
    expect([over.failureClass, over.toGwError().code]).toEqual(["transient", "provider_unavailable"]);
    const other = streamError('{"type":"error","error":{"type":"api_error","message":"boom"}}', "anthropic");
    expect([other.failureClass, other.toGwError().code]).toEqual(["transient", "upstream_error"]);
  });
});
