// POST /v1/messages through @anthropic-ai/sdk's messages.create (issue 20 item 7): a test key in
// test mode, live keys in front of a scripted OpenAI-format and a scripted Anthropic-format upstream,
// x-api-key and Bearer, Anthropic's error envelope, and the request as each upstream receives it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type { ScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { anthropicUpstream, openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { get, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let openaiUp: ScriptedUpstream;
let anthropicUp: ScriptedAnthropic;
let testClient: Anthropic;
let live: Anthropic;
let liveKey: string;
let stop: () => Promise<void>;

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

/** The SDK's base URL is gw's root: it appends /v1/messages itself. */
const rootOf = (gw: TestGw) => gw.url.replace(/\/v1$/, "");

beforeAll(async () => {
  ({ gw, upstreams: { openai: openaiUp, anthropic: anthropicUp }, stop } = await startGw({
    upstreams: { openai: openaiUpstream(), anthropic: anthropicUpstream() },
  }));
  testClient = new Anthropic({ apiKey: gw.testKey, baseURL: rootOf(gw), maxRetries: 0 });
  liveKey = gw.key({ mode: "live", scopes: ["chat", "requests"] });
  live = new Anthropic({ apiKey: liveKey, baseURL: rootOf(gw), maxRetries: 0 });
});
afterAll(() => stop());

describe("messages.create with a test key", () => {
  test("answers an Anthropic Message with text, stop_reason, usage, the gw object and both request ids", async () => {
    const { data: m, response } = await testClient.messages
      .create({ model: "gw-auto", max_tokens: 64, system: "Be brief.", messages: [{ role: "user", content: "Say hello in one word." }] })
      .withResponse();
    const requestId = response.headers.get("x-gw-request-id")!;
    expect(requestId).toMatch(/^req_/);
    expect(response.headers.get("request-id")).toBe(requestId);
    expect(m.id).toBe(requestId.replace(/^req_/, "msg_"));
    expect(m.type).toBe("message");
    expect(m.role).toBe("assistant");
    expect(m.content[0]!.type).toBe("text");
    const text = m.content[0]!.type === "text" ? m.content[0]!.text : "";
    expect(text.length).toBeGreaterThan(0);
    expect(m.stop_reason).toBe("end_turn");
    expect(m.stop_sequence).toBeNull();
    expect(m.usage.input_tokens).toBeGreaterThan(0);
    expect(m.usage.output_tokens).toBeGreaterThan(0);
    expect(m.usage.cache_read_input_tokens).toBe(0);
    expect(m.usage.cache_creation_input_tokens).toBe(0);
    // The gw object is gw's extension of the Message, not in the SDK's types.
    const gwPart = Reflect.get(m, "gw") as Record<string, unknown>;
    expect(gwPart).toMatchObject({ request_id: requestId, provider: "sandbox", test: true });
    expect(m.model).toBe(gwPart.selected_model as string);
    expect(response.headers.get("x-gw-model")).toBe(m.model);
    expect(response.headers.get("x-gw-api-version")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test("Authorization: Bearer works as well as x-api-key; anthropic-version and anthropic-beta are accepted", async () => {
    const bearer = new Anthropic({ authToken: gw.testKey, apiKey: null, baseURL: rootOf(gw), maxRetries: 0 });
    const m = await bearer.messages.create(
      { model: "gw-auto", max_tokens: 32, messages: [{ role: "user", content: "hi" }] },
      { headers: { "anthropic-beta": "prompt-caching-2024-07-31,interleaved-thinking-2025-05-14" } },
    );
    expect(m.type).toBe("message");
  });

  test("a tool the model calls comes back as a tool_use block with stop_reason tool_use", async () => {
    const m = await testClient.messages.create({
      model: "gw-auto", max_tokens: 128, tools: [weatherTool], tool_choice: { type: "any" },
      messages: [{ role: "user", content: "What is the weather in Paris?" }],
    });
    expect(m.stop_reason).toBe("tool_use");
    const call = m.content.find((b) => b.type === "tool_use");
    if (!call || call.type !== "tool_use") throw new Error("no tool_use block");
    expect(call.name).toBe("get_weather");
    expect(typeof (call.input as { city: unknown }).city).toBe("string");
  });

  test("the request log and its trace name the endpoint 'messages'", async () => {
    const { response } = await testClient.messages
      .create({ model: "gw-auto", max_tokens: 16, messages: [{ role: "user", content: "log me" }] })
      .withResponse();
    const id = response.headers.get("x-gw-request-id")!;
    await gw.drain();
    const res = await get(`${gw.url}/requests/${id}`, gw.testKey);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { endpoint: string }).endpoint).toBe("messages");
  });
});

describe("errors in Anthropic's envelope, with gw's statuses", () => {
  const raw = (body: unknown, headers: Record<string, string> = { "x-api-key": gw.testKey }) =>
    fetch(`${gw.url}/messages`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  test("a missing max_tokens is 400 invalid_request_error naming it, with request-id", async () => {
    const res = await raw({ model: "gw-auto", messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string; param: string }; request_id: string };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.param).toBe("max_tokens");
    expect(body.error.message).toBe("'max_tokens' is required by the Messages API.");
    expect(body.request_id).toBe(res.headers.get("request-id")!);
    expect(res.headers.get("x-gw-request-id")).toBe(body.request_id);
  });

  test("a body that is not JSON, an unknown block type and a server tool are 400s", async () => {
    const notJson = await fetch(`${gw.url}/messages`, { method: "POST", headers: { "x-api-key": gw.testKey }, body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const doc = await raw({ model: "gw-auto", max_tokens: 8, messages: [{ role: "user", content: [{ type: "document", source: { type: "text", data: "x", media_type: "text/plain" } }] }] });
    expect(doc.status).toBe(400);
    expect(((await doc.json()) as { error: { param: string } }).error.param).toBe("messages[0].content[0].type");
    const server = await raw({ model: "gw-auto", max_tokens: 8, tools: [{ type: "web_search_20250305", name: "web_search" }], messages: [{ role: "user", content: "x" }] });
    expect(server.status).toBe(400);
    expect(((await server.json()) as { error: { param: string } }).error.param).toBe("tools[0].type");
  });

  test("the SDK raises its typed errors: 401, 403, 404, 429, 503", async () => {
    const ask = (client: Anthropic, model = "gw-auto") =>
      client.messages.create({ model, max_tokens: 8, messages: [{ role: "user", content: "hi" }] }).then(() => null, (e: unknown) => e);
    const bad = new Anthropic({ apiKey: "gw_test_notakey", baseURL: rootOf(gw), maxRetries: 0 });
    expect(await ask(bad)).toBeInstanceOf(Anthropic.AuthenticationError);
    const noChat = new Anthropic({ apiKey: gw.key({ scopes: ["embeddings"] }), baseURL: rootOf(gw), maxRetries: 0 });
    expect(await ask(noChat)).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(await ask(testClient, "no-such/model")).toBeInstanceOf(Anthropic.NotFoundError);
    expect(await ask(testClient, "gw-test:rate_limited")).toBeInstanceOf(Anthropic.RateLimitError);
    const unavailable = await ask(testClient, "gw-test:no_model_available");
    expect(unavailable).toBeInstanceOf(Anthropic.InternalServerError);
    const err = unavailable as InstanceType<typeof Anthropic.APIError>;
    expect(err.status).toBe(503);
    expect(err.type).toBe("overloaded_error");
    expect(err.requestID).toMatch(/^req_/);
  });

  test("no key at all is 401 authentication_error", async () => {
    const res = await raw({ model: "gw-auto", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }, {});
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
  });

  test("402 billing_error and 504 timeout_error", async () => {
    const billing = await raw({ model: "gw-test:budget_exceeded", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    expect(billing.status).toBe(402);
    expect(((await billing.json()) as { error: { type: string } }).error.type).toBe("billing_error");
    const timeout = await raw({ model: "gw-test:timeout", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    expect(timeout.status).toBe(504);
    expect(((await timeout.json()) as { error: { type: string } }).error.type).toBe("timeout_error");
  });

  test("an Idempotency-Key refusal leaves in Anthropic's envelope too", async () => {
    const res = await raw({ model: "gw-auto", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }, { "x-api-key": gw.testKey, "idempotency-key": "" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
  });
});

describe("live keys in front of scripted upstreams", () => {
  test("an OpenAI-format upstream receives the mapped chat request", async () => {
    openaiUp.reset();
    // temperature, top_p and top_k are gone from this SDK's types; older clients (and Claude Code) send them.
    const params = {
      model: "openai/gpt-4o-mini", max_tokens: 100, temperature: 0.3, top_p: 0.9, top_k: 5, stop_sequences: ["END"],
      system: [{ type: "text", text: "You are terse." }, { type: "text", text: "Answer in English.", cache_control: { type: "ephemeral" } }],
      metadata: { user_id: "user-42" },
      tools: [weatherTool], tool_choice: { type: "auto", disable_parallel_tool_use: true },
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] },
        { role: "assistant", content: [{ type: "text", text: "Checking." }, { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny" }, { type: "text", text: "And tomorrow?" }] },
      ],
    };
    const m = await live.messages.create(params as Anthropic.MessageCreateParamsNonStreaming);
    expect(m.type).toBe("message");
    const body = openaiUp.calls.at(-1)!.body as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "system", content: "Answer in English." },
      { role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] },
      { role: "assistant", content: "Checking.", tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "sunny" },
      { role: "user", content: "And tomorrow?" },
    ]);
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(100);
    expect(body.temperature).toBe(0.3);
    expect(body.top_p).toBe(0.9);
    expect(body.stop).toEqual(["END"]);
    expect(body.user).toBe("user-42");
    expect(body.tool_choice).toBe("auto");
    expect(body.parallel_tool_calls).toBe(false);
    expect(body.tools).toEqual([{ type: "function", function: { name: "get_weather", description: "Current weather for a city", parameters: weatherTool.input_schema } }]);
    for (const field of ["system", "stop_sequences", "top_k", "metadata"]) expect(body[field]).toBeUndefined();
  });

  test("a tool_result's images follow it in a user message; tool_choice none; a thinking block is dropped", async () => {
    openaiUp.reset();
    await live.messages.create({
      model: "openai/gpt-4o-mini", max_tokens: 50, tools: [weatherTool], tool_choice: { type: "none" },
      messages: [
        { role: "user", content: "Show me the radar." },
        { role: "assistant", content: [{ type: "thinking", thinking: "Use the tool.", signature: "sig" }, { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Rome" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", is_error: false, content: [{ type: "text", text: "radar:" }, { type: "image", source: { type: "url", url: "https://example.com/radar.png" } }] }] },
      ],
    });
    const body = openaiUp.calls.at(-1)!.body as Record<string, unknown>;
    expect(body.tool_choice).toBe("none");
    expect(body.messages).toEqual([
      { role: "user", content: "Show me the radar." },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_9", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }] },
      { role: "tool", tool_call_id: "toolu_9", content: "radar:" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/radar.png" } }] },
    ]);
  });

  test("finish_reason length is stop_reason max_tokens; tool_choice tool names the function", async () => {
    openaiUp.script({
      body: {
        id: "chatcmpl-x", object: "chat.completion", created: 1, model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "Once upon a" }, finish_reason: "length" }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      },
    });
    const m = await live.messages.create({ model: "openai/gpt-4o-mini", max_tokens: 3, tools: [weatherTool], tool_choice: { type: "tool", name: "get_weather" }, messages: [{ role: "user", content: "Tell a story" }] });
    expect(m.stop_reason).toBe("max_tokens");
    expect(m.content as unknown[]).toEqual([{ type: "text", text: "Once upon a" }]);
    expect(m.usage).toMatchObject({ input_tokens: 5, output_tokens: 3 });
    const body = openaiUp.calls.at(-1)!.body as Record<string, unknown>;
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
  });

  test("an Anthropic-format upstream: blocks round trip, usage keeps cache reads and writes apart", async () => {
    anthropicUp.reset();
    anthropicUp.script({ text: "Let me look.", toolUses: [{ name: "get_weather", input: { city: "Oslo" } }], usage: { inputTokens: 11, outputTokens: 7, cacheReadInputTokens: 100, cacheCreationInputTokens: 20 } });
    const m = await live.messages.create({
      model: "anthropic/claude-haiku-4-5", max_tokens: 200, system: "Be helpful.", tools: [weatherTool],
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "sunny" }] }, { type: "text", text: "And Oslo?" }] },
      ],
    });
    expect(m.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    const call = m.content[1]!;
    if (call.type !== "tool_use") throw new Error("no tool_use");
    expect(call.input).toEqual({ city: "Oslo" });
    expect(call.id).toMatch(/^toolu_/);
    expect(m.stop_reason).toBe("tool_use");
    const usage: Record<string, unknown> = { ...m.usage };
    expect(usage).toEqual({ input_tokens: 11, output_tokens: 7, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 });
    const sent = anthropicUp.calls.at(-1)!.body as { system: unknown; messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(sent.system).toEqual([{ type: "text", text: "Be helpful." }]);
    expect(sent.messages[1]!.content).toEqual([{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }]);
    expect(sent.messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01", content: "sunny" });
    expect(sent.messages[2]!.content[1]).toMatchObject({ type: "text", text: "And Oslo?" });
  });
});
