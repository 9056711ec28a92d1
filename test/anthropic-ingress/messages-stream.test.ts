// Streamed POST /v1/messages (issue 20 item 7): Anthropic's event sequence as @anthropic-ai/sdk reads
// it (messages.stream() and finalMessage(), create({stream: true})), tools included, on the wire
// (ping, gw.summary), before scripted OpenAI-format and Anthropic-format upstreams, and an error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type { ScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { anthropicUpstream, openaiUpstream, startGw } from "../helpers/start-gw.ts";
import type { TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let anthropicUp: ScriptedAnthropic;
let testClient: Anthropic;
let live: Anthropic;
let stop: () => Promise<void>;

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};
const ask = (content: string) => [{ role: "user" as const, content }];

beforeAll(async () => {
  ({ gw, upstreams: { anthropic: anthropicUp }, stop } = await startGw({
    upstreams: { openai: openaiUpstream(), anthropic: anthropicUpstream() },
  }));
  const baseURL = gw.url.replace(/\/v1$/, "");
  testClient = new Anthropic({ apiKey: gw.testKey, baseURL, maxRetries: 0 });
  live = new Anthropic({ apiKey: gw.key({ mode: "live", scopes: ["chat"] }), baseURL, maxRetries: 0 });
});
afterAll(() => stop());

/** The SSE events of a raw streamed request, as [name, data]. */
async function rawEvents(body: Record<string, unknown>): Promise<{ res: Response; events: Array<[string, Record<string, unknown>]> }> {
  const res = await fetch(`${gw.url}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": gw.testKey, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const events: Array<[string, Record<string, unknown>]> = [];
  for (const frame of (await res.text()).split("\n\n")) {
    const name = /^event: (.+)$/m.exec(frame)?.[1];
    const data = /^data: (.+)$/m.exec(frame)?.[1];
    if (name && data) events.push([name, JSON.parse(data) as Record<string, unknown>]);
  }
  return { res, events };
}

describe("the wire", () => {
  test("message_start, ping, one text block, message_delta, message_stop, then gw.summary", async () => {
    const { res, events } = await rawEvents({ model: "gw-auto", max_tokens: 64, messages: ask("Write one sentence about the sea.") });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const requestId = res.headers.get("x-gw-request-id")!;
    expect(res.headers.get("request-id")).toBe(requestId);
    const names = events.map(([name]) => name);
    expect(names.slice(0, 3)).toEqual(["message_start", "ping", "content_block_start"]);
    expect(names.slice(-5)).toEqual(["content_block_delta", "content_block_stop", "message_delta", "message_stop", "gw.summary"]);
    for (const [name, data] of events) expect(data.type).toBe(name);
    const start = events[0]![1].message as { id: string; content: unknown[]; usage: { input_tokens: number } };
    expect(start.id).toBe(requestId.replace(/^req_/, "msg_"));
    expect(start.content).toEqual([]);
    expect(start.usage.input_tokens).toBeGreaterThan(0);
    const deltas = events.filter(([name]) => name === "content_block_delta").map(([, d]) => d);
    expect(deltas.length).toBeGreaterThan(1);
    for (const d of deltas) expect(d).toMatchObject({ index: 0, delta: { type: "text_delta" } });
    const messageDelta = events.at(-3)![1] as { delta: { stop_reason: string }; usage: { output_tokens: number } };
    expect(messageDelta.delta.stop_reason).toBe("end_turn");
    expect(messageDelta.usage.output_tokens).toBeGreaterThan(0);
    expect(events.at(-1)![1].gw).toMatchObject({ request_id: requestId, provider: "sandbox", test: true });
  });

  test("an error after the start is an error event in Anthropic's envelope, and the stream ends", async () => {
    const { events } = await rawEvents({ model: "gw-test:stream_error", max_tokens: 64, messages: ask("hello there") });
    const names = events.map(([name]) => name);
    expect(names[0]).toBe("message_start");
    expect(names).toContain("content_block_delta");
    expect(names.at(-1)).toBe("error");
    expect(names).not.toContain("message_stop");
    const error = events.at(-1)![1] as { type: string; error: { type: string; message: string }; request_id: string };
    expect(error.type).toBe("error");
    expect(error.error.type).toBe("api_error");
    expect(error.request_id).toMatch(/^req_/);
  });
});

describe("@anthropic-ai/sdk", () => {
  test("messages.stream(): text events and finalMessage() agree", async () => {
    const stream = testClient.messages.stream({ model: "gw-auto", max_tokens: 64, messages: ask("Write one sentence about the sea.") });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(final.content).toHaveLength(1);
    const block = final.content[0]!;
    if (block.type !== "text") throw new Error("not text");
    expect(block.text).toBe(text);
    expect(text.length).toBeGreaterThan(0);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(final.id).toMatch(/^msg_/);
  });

  test("messages.stream() with tools: input_json_delta accumulates into the tool_use input", async () => {
    const stream = testClient.messages.stream({
      model: "gw-auto", max_tokens: 128, tools: [weatherTool], tool_choice: { type: "tool", name: "get_weather" },
      messages: ask("What is the weather in Paris?"),
    });
    let pieces = 0;
    stream.on("inputJson", () => pieces++);
    const final = await stream.finalMessage();
    const call = final.content.find((b) => b.type === "tool_use");
    if (!call || call.type !== "tool_use") throw new Error("no tool_use");
    expect(pieces).toBeGreaterThan(0);
    expect(call.name).toBe("get_weather");
    expect(typeof (call.input as { city: unknown }).city).toBe("string");
    expect(final.stop_reason).toBe("tool_use");
  });

  test("create({stream: true}) yields the events in order; a failure raises APIError", async () => {
    const stream = await testClient.messages.create({ model: "gw-auto", max_tokens: 32, messages: ask("hi"), stream: true });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types[0]).toBe("message_start");
    expect(types.slice(-3)).toEqual(["message_delta", "message_stop", "gw.summary"]);

    const failing = await testClient.messages.create({ model: "gw-test:stream_error", max_tokens: 32, messages: ask("hello there"), stream: true });
    let raised: unknown = null;
    try {
      for await (const e of failing) types.push(e.type);
    } catch (err) {
      raised = err;
    }
    expect(raised).toBeInstanceOf(Anthropic.APIError);
  });

  test("before an OpenAI-format upstream: a streamed answer", async () => {
    const final = await live.messages.stream({ model: "openai/gpt-4o-mini", max_tokens: 64, messages: ask("Say something") }).finalMessage();
    expect(final.content[0]!.type).toBe("text");
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.input_tokens).toBeGreaterThan(0);
  });

  test("before an Anthropic-format upstream: text then a tool_use block, usage with cache reads and writes", async () => {
    anthropicUp.script({ text: "Let me check.", toolUses: [{ name: "get_weather", input: { city: "Oslo" } }], usage: { inputTokens: 9, outputTokens: 12, cacheReadInputTokens: 300, cacheCreationInputTokens: 40 } });
    const final = await live.messages
      .stream({ model: "anthropic/claude-haiku-4-5", max_tokens: 128, tools: [weatherTool], messages: ask("Weather in Oslo?") })
      .finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    const [text, call] = final.content;
    if (text!.type !== "text" || call!.type !== "tool_use") throw new Error("unexpected blocks");
    expect(text!.text).toBe("Let me check.");
    expect(call!.input).toEqual({ city: "Oslo" });
    expect(call!.id).toMatch(/^toolu_/);
    expect(final.stop_reason).toBe("tool_use");
    expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: 12, cache_read_input_tokens: 300, cache_creation_input_tokens: 40 });
  });
});
