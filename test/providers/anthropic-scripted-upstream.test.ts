// Proves the scripted Anthropic upstream speaks the real Messages API wire format: the official
// `@anthropic-ai/sdk`, pointed at it, must accept every reply (whole, streamed, helpers and errors).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import Anthropic, { type APIError } from "@anthropic-ai/sdk";
import { type ScriptedAnthropic, startScriptedAnthropic } from "../helpers/scripted-anthropic.ts";

let upstream: ScriptedAnthropic;
let client: Anthropic;

const weather = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: {
    type: "object" as const,
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city", "days"],
  },
};
const user = (content: string) => [{ role: "user" as const, content }];
/** A message's content as comparable values: text blocks as their text, others as their type. */
const texts = (content: Anthropic.ContentBlock[]): string[] => content.map((b) => (b.type === "text" ? b.text : b.type));

beforeAll(async () => {
  upstream = await startScriptedAnthropic();
  client = new Anthropic({ apiKey: "sk-ant-test", baseURL: upstream.url, maxRetries: 0 });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

describe("messages.create (Messages API, non-streaming)", () => {
  test("text answer echoes the last user text, with usage and headers the SDK reads", async () => {
    const msg = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 256, messages: user("Hello there") });
    expect(msg.id).toStartWith("msg_");
    expect(msg.type).toBe("message");
    expect(msg.role).toBe("assistant");
    expect(msg.model).toBe("claude-haiku-4-5");
    expect(texts(msg.content)).toEqual(["Echo: Hello there"]);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(msg.usage.cache_read_input_tokens).toBe(0);
    const call = upstream.calls[0];
    expect(call?.path).toBe("/v1/messages");
    // SDK 1.x sends the key as a Bearer token and pins API version 2026-10-21; gw sends x-api-key.
    expect(call?.headers.authorization).toBe("Bearer sk-ant-test");
    expect(call?.headers["anthropic-version"]).toBe("2026-10-21");
  });

  test("a request with tools gets a tool_use block whose input follows the schema", async () => {
    const msg = await client.messages.create({ model: "m", max_tokens: 256, tools: [weather], messages: user("Weather in Paris?") });
    expect(msg.stop_reason).toBe("tool_use");
    const block = msg.content[0];
    expect(block?.type).toBe("tool_use");
    if (block?.type !== "tool_use") throw new Error("expected tool_use");
    expect(block.id).toStartWith("toolu_");
    expect(block.name).toBe("get_weather");
    expect(block.input).toEqual({ city: "sample", days: 1 });
  });

  test("scripted cache usage and stop_sequences / max_tokens behave like the model", async () => {
    upstream.script({ usage: { inputTokens: 10, cacheReadInputTokens: 2000, cacheCreationInputTokens: 300 } });
    const cached = await client.messages.create({ model: "m", max_tokens: 50, messages: user("hi") });
    expect(cached.usage).toMatchObject({ input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 });
    const stopped = await client.messages.create({ model: "m", max_tokens: 50, stop_sequences: ["world"], messages: user("hello world") });
    expect(stopped.stop_reason).toBe("stop_sequence");
    expect(stopped.stop_sequence).toBe("world");
    expect(texts(stopped.content)).toEqual(["Echo: hello "]);
    const short = await client.messages.create({ model: "m", max_tokens: 1, messages: user("a long answer") });
    expect(short.stop_reason).toBe("max_tokens");
  });
});

describe("messages.stream (SSE event sequence)", () => {
  test("text: the SDK's text events and finalMessage() reassemble the answer", async () => {
    const events: string[] = [];
    let text = "";
    const stream = client.messages.stream({ model: "m", max_tokens: 256, messages: user("stream these words please") });
    stream.on("streamEvent", (e) => events.push(e.type));
    stream.on("text", (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    expect(texts(final.content)).toEqual(["Echo: stream these words please"]);
    expect(text).toBe("Echo: stream these words please");
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBeGreaterThan(1);
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    expect(events.filter((e) => e === "content_block_delta").length).toBeGreaterThan(1);
  });

  test("raw events include ping and follow the documented order", async () => {
    const res = await fetch(`${upstream.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 64, stream: true, messages: user("a b") }),
    });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const names = [...(await res.text()).matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names).toEqual([
      "message_start", "content_block_start", "ping", "content_block_delta", "content_block_delta",
      "content_block_delta", "content_block_stop", "message_delta", "message_stop",
    ]);
  });

  test("tool_use: input_json_delta events build the input (inputJson helper, finalMessage)", async () => {
    upstream.script({ text: "Let me check.", toolUses: [{ name: "get_weather", input: { city: "Paris", days: 3 } }, { name: "get_weather", input: { city: "Oslo", days: 1 } }] });
    const partials: string[] = [];
    const stream = client.messages.stream({ model: "m", max_tokens: 256, tools: [weather], messages: user("Paris and Oslo?") });
    stream.on("inputJson", (partial) => partials.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"]);
    const uses = final.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    expect(uses.map((b) => b.input)).toEqual([{ city: "Paris", days: 3 }, { city: "Oslo", days: 1 }]);
    expect(new Set(uses.map((b) => b.id)).size).toBe(2);
    expect(partials.join("")).toBe(JSON.stringify({ city: "Paris", days: 3 }) + JSON.stringify({ city: "Oslo", days: 1 }));
  });

  test("a mid-stream `event: error` surfaces as the SDK's APIError", async () => {
    upstream.script({ streamError: { afterEvents: 3, type: "overloaded_error", message: "Overloaded" } });
    const err = await client.messages.stream({ model: "m", max_tokens: 64, messages: user("x y z") }).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as APIError).type).toBe("overloaded_error");
  });

  test("a stream cut mid-way makes finalMessage() reject", async () => {
    upstream.script({ cutAfterEvents: 4 });
    const err = await client.messages.stream({ model: "m", max_tokens: 64, messages: user("one two three four") }).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
  });
});

describe("errors (Anthropic 'HTTP errors' table)", () => {
  test("429 is RateLimitError with retry-after; 529 is OverloadedError", async () => {
    upstream.script({ status: 429, headers: { "retry-after": "7" } });
    const limited = await client.messages.create({ model: "m", max_tokens: 8, messages: user("x") }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as APIError).headers?.get("retry-after")).toBe("7");
    expect((limited as APIError).type).toBe("rate_limit_error");
    upstream.script({ status: 529 });
    const overloaded = await client.messages.create({ model: "m", max_tokens: 8, messages: user("x") }).catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(Anthropic.OverloadedError);
    expect((overloaded as APIError).type).toBe("overloaded_error");
  });

  test("wrong or missing key is 401 authentication_error", async () => {
    const wrong = new Anthropic({ apiKey: "sk-ant-wrong", baseURL: upstream.url, maxRetries: 0 });
    const err = await wrong.messages.create({ model: "m", max_tokens: 8, messages: user("x") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    const res = await fetch(`${upstream.url}/v1/messages`, { method: "POST", headers: { "anthropic-version": "2023-06-01" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: "error", error: { type: "authentication_error", message: "x-api-key header is required" } });
  });

  test("validation: max_tokens required, anthropic-version required, sampling parameters per version", async () => {
    const post = (body: unknown, headers: Record<string, string> = { "anthropic-version": "2023-06-01" }) =>
      fetch(`${upstream.url}/v1/messages`, { method: "POST", headers: { "x-api-key": "sk-ant-test", ...headers }, body: JSON.stringify(body) });
    const noMax = await post({ model: "m", messages: user("x") });
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ error: { type: "invalid_request_error", message: "max_tokens: Field required" } });
    expect((await post({ model: "m", max_tokens: 8, messages: user("x") }, {})).status).toBe(400);
    expect((await post({ model: "m", max_tokens: 8, messages: user("x") }, { "anthropic-version": "2020-01-01" })).status).toBe(400);
    const sampled = { model: "m", max_tokens: 8, temperature: 0.5, messages: user("x") };
    expect((await post(sampled)).status).toBe(200);
    const removed = await post(sampled, { "anthropic-version": "2026-10-21" });
    expect(await removed.json()).toMatchObject({ error: { message: "temperature: Extra inputs are not permitted" } });
    const sdkErr = await client.messages.create({ ...sampled, temperature: 0.5 } as Anthropic.MessageCreateParamsNonStreaming).catch((e: unknown) => e);
    expect(sdkErr).toBeInstanceOf(Anthropic.BadRequestError);
    const bad = await client.messages.create({ model: "m", max_tokens: 8, messages: [] }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
  });
});
