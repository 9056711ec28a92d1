// POST /responses through the official `openai` SDK (issue 6 done-when): responses.create with and
// without stream, the responses.stream() helper, and a tool round trip, against gw in test mode
// and against scripted OpenAI and Anthropic upstreams with live keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { ScriptedAnthropic } from "../../helpers/scripted-anthropic.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { anthropicUpstream, openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import type { TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
let openaiUp: ScriptedUpstream;
let anthropicUp: ScriptedAnthropic;
let test_: OpenAI;
let live: OpenAI;
let stop: () => Promise<void>;

const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

beforeAll(async () => {
  ({ gw, upstreams: { openai: openaiUp, anthropic: anthropicUp }, stop } = await startGw({
    upstreams: { openai: openaiUpstream(), anthropic: anthropicUpstream() },
  }));
  test_ = new OpenAI({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
  live = new OpenAI({ apiKey: gw.key({ mode: "live", scopes: ["chat", "requests"] }), baseURL: gw.url, maxRetries: 0 });
});
afterAll(() => stop());

describe("responses.create (non-streaming)", () => {
  test("answers a Responses object with output, output_text, usage and gw, and the gw headers", async () => {
    const { data: r, response } = await test_.responses
      .create({ model: "gw-auto", input: "Say hello in one word.", instructions: "Be brief." })
      .withResponse();
    const requestId = response.headers.get("x-gw-request-id")!;
    expect(r.id).toBe(requestId.replace(/^req_/, "resp_"));
    expect(r.object).toBe("response");
    expect(r.status).toBe("completed");
    expect(r.instructions).toBe("Be brief.");
    expect(Number.isInteger(r.created_at)).toBe(true);
    const message = r.output[0]!;
    expect(message.type).toBe("message");
    if (message.type !== "message") throw new Error("not a message");
    expect(message.id).toMatch(/^msg_/);
    expect(message.content[0]).toMatchObject({ type: "output_text", annotations: [] });
    expect(r.output_text.length).toBeGreaterThan(0);
    const { input_tokens, output_tokens, total_tokens, input_tokens_details } = r.usage!;
    expect(input_tokens).toBeGreaterThan(0);
    expect(output_tokens).toBeGreaterThan(0);
    expect(total_tokens).toBe(input_tokens + output_tokens);
    expect(input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
    const gwPart = (r as unknown as { gw: Record<string, unknown> }).gw;
    expect(gwPart).toMatchObject({ request_id: requestId, provider: "sandbox", test: true, cache: null, fallbacks: 0 });
    expect(r.model).toBe(gwPart.selected_model as string);
    expect(response.headers.get("x-gw-model")).toBe(r.model);
    expect(response.headers.get("x-gw-provider")).toBe("sandbox");
    expect(response.headers.get("x-gw-cache")).toBe("miss");
    expect(response.headers.get("x-gw-api-version")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test("text.format json_schema answers JSON that matches the schema", async () => {
    const r = await test_.responses.create({
      model: "gw-auto",
      input: "Give me a city and its population.",
      text: { format: { type: "json_schema", name: "city", strict: true, schema: { type: "object", properties: { name: { type: "string" }, population: { type: "integer" } }, required: ["name", "population"], additionalProperties: false } } },
    });
    const parsed = JSON.parse(r.output_text) as { name: unknown; population: unknown };
    expect(typeof parsed.name).toBe("string");
    expect(Number.isInteger(parsed.population)).toBe(true);
  });

  test("a live model's upstream receives the mapped chat request; max_output_tokens bounds it", async () => {
    openaiUp.reset();
    const r = await live.responses.create({
      model: "openai/gpt-4o-mini",
      instructions: "You are terse.",
      input: [{ role: "user", content: [{ type: "input_text", text: "Describe this" }, { type: "input_image", image_url: "https://example.com/cat.png", detail: "low" }] }],
      max_output_tokens: 64,
      temperature: 0.2,
    });
    expect(r.status).toBe("completed");
    const body = openaiUp.calls.at(-1)!.body as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: [{ type: "text", text: "Describe this" }, { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } }] },
    ]);
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(64);
    expect(body.temperature).toBe(0.2);
    for (const field of ["input", "instructions", "max_output_tokens", "text", "store"]) expect(body[field]).toBeUndefined();
  });

  test("a cut-off answer is status incomplete with reason max_output_tokens", async () => {
    openaiUp.script({
      body: {
        id: "chatcmpl-x", object: "chat.completion", created: 1, model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "Once upon a" }, finish_reason: "length" }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      },
    });
    const r = await live.responses.create({ model: "openai/gpt-4o-mini", input: "Tell a story", max_output_tokens: 3 });
    expect(r.status).toBe("incomplete");
    expect(r.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(r.output_text).toBe("Once upon a");
  });
});

describe("a tool round trip", () => {
  test("function_call output, then function_call and function_call_output items sent back", async () => {
    openaiUp.reset();
    const first = await live.responses.create({ model: "openai/gpt-4o-mini", input: "Weather in Paris?", tools: [weatherTool] });
    const call = first.output.find((o) => o.type === "function_call");
    if (!call || call.type !== "function_call") throw new Error("no function call");
    expect(call.id).toMatch(/^fc_/);
    expect(call.status).toBe("completed");
    expect(() => JSON.parse(call.arguments)).not.toThrow();
    expect(first.output_text).toBe("");

    const second = await live.responses.create({
      model: "openai/gpt-4o-mini",
      tools: [weatherTool],
      input: [
        { role: "user", content: "Weather in Paris?" },
        call,
        { type: "function_call_output", call_id: call.call_id, output: '{"temp_c":18}' },
      ],
    });
    expect(second.status).toBe("completed");
    const sent = openaiUp.calls.at(-1)!.body as { messages: Array<Record<string, unknown>> };
    expect(sent.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: null, tool_calls: [{ id: call.call_id, type: "function", function: { name: "get_weather", arguments: call.arguments } }] },
      { role: "tool", tool_call_id: call.call_id, content: '{"temp_c":18}' },
    ]);
  });

  test("through Anthropic: tool_use and tool_result blocks carry the call id both ways", async () => {
    anthropicUp.reset();
    const input = [
      { role: "user" as const, content: "Weather in Paris?" },
      { type: "function_call" as const, call_id: "toolu_01", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output" as const, call_id: "toolu_01", output: "sunny" },
    ];
    const r = await live.responses.create({ model: "anthropic/claude-haiku-4-5", tools: [weatherTool], input });
    expect(r.status).toBe("completed");
    const sent = anthropicUp.calls.at(-1)!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(sent.messages[1]!.content).toEqual([{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }]);
    expect(sent.messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01" });
  });
});

describe("streaming", () => {
  test("iterating create({stream: true}): OpenAI's event order, sequence numbers, and completed with gw", async () => {
    const stream = await test_.responses.create({ model: "gw-auto", input: "Write one sentence about the sea.", stream: true });
    const events: Array<Record<string, unknown>> = [];
    for await (const e of stream) events.push(e as unknown as Record<string, unknown>);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types.slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect((events[0]!.response as Record<string, unknown>).status).toBe("in_progress");
    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    expect(deltas.length).toBeGreaterThan(1);
    const itemId = (events[2]!.item as { id: string }).id;
    for (const d of deltas) expect(d.item_id).toBe(itemId);
    const completed = events.at(-1)!.response as { output_text: string; status: string; gw: Record<string, unknown>; usage: Record<string, number> };
    expect(completed.status).toBe("completed");
    expect(completed.output_text).toBe(deltas.map((d) => d.delta).join(""));
    expect(completed.gw).toMatchObject({ provider: "sandbox", test: true });
    expect(completed.usage.output_tokens).toBeGreaterThan(0);
  });

  test("the responses.stream() helper accumulates a function call from argument deltas", async () => {
    const stream = test_.responses.stream({ model: "gw-auto", input: "What is the weather in Paris?", tools: [weatherTool] });
    let argumentDeltas = 0;
    stream.on("response.function_call_arguments.delta", () => argumentDeltas++);
    const final = await stream.finalResponse();
    const call = final.output.find((o) => o.type === "function_call");
    if (!call || call.type !== "function_call") throw new Error("no function call");
    expect(argumentDeltas).toBeGreaterThan(0);
    expect(call.name).toBe("get_weather");
    expect(typeof (JSON.parse(call.arguments) as { city: unknown }).city).toBe("string");
  });

  test("an Anthropic stream with text and a tool call becomes message and function_call items", async () => {
    anthropicUp.script({ text: "Let me check.", toolUses: [{ name: "get_weather", input: { city: "Oslo" } }] });
    const stream = live.responses.stream({ model: "anthropic/claude-haiku-4-5", input: "Weather in Oslo?", tools: [weatherTool] });
    const final = await stream.finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(["message", "function_call"]);
    expect(final.output_text).toBe("Let me check.");
    const call = final.output[1]!;
    if (call.type !== "function_call") throw new Error("no function call");
    expect(JSON.parse(call.arguments)).toEqual({ city: "Oslo" });
    expect(call.call_id).toMatch(/^toolu_/);
  });

  test("a failure after the stream started arrives as an error event, which the SDK raises", async () => {
    const stream = await test_.responses.create({ model: "gw-test:stream_error", input: "hello there", stream: true });
    const seen: string[] = [];
    let raised: unknown = null;
    try {
      for await (const e of stream) seen.push(e.type);
    } catch (err) {
      raised = err;
    }
    expect(seen).toContain("response.output_text.delta");
    expect(seen).not.toContain("response.completed");
    expect(raised).toBeInstanceOf(OpenAI.APIError);
  });
});
