// POST /v1/messages/count_tokens through @anthropic-ai/sdk's messages.countTokens (issue 20 item 7):
// gw's own count of the prompt (system, turns, tools, images), no upstream call, Anthropic's errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { countMessageTokens } from "../../src/analysis/tokens.ts";
import type { ScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { anthropicUpstream, startGw } from "../helpers/start-gw.ts";
import type { TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let anthropicUp: ScriptedAnthropic;
let client: Anthropic;
let stop: () => Promise<void>;

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

beforeAll(async () => {
  ({ gw, upstreams: { anthropic: anthropicUp }, stop } = await startGw({ upstreams: { anthropic: anthropicUpstream() } }));
  client = new Anthropic({ apiKey: gw.key({ mode: "live", scopes: ["chat"] }), baseURL: gw.url.replace(/\/v1$/, ""), maxRetries: 0 });
});
afterAll(() => stop());

describe("messages.countTokens", () => {
  test("counts the prompt as gw's counter does, system included; no upstream is called", async () => {
    const { input_tokens, ...rest } = await client.messages.countTokens({
      model: "anthropic/claude-haiku-4-5", system: "You are terse.",
      messages: [{ role: "user", content: "How many tokens is this sentence?" }],
    });
    expect(rest).toEqual({});
    expect(input_tokens).toBe(countMessageTokens([
      { role: "system", content: "You are terse." }, { role: "user", content: "How many tokens is this sentence?" },
    ]));
    expect(anthropicUp.callCount()).toBe(0);
  });

  test("tools and images add to the count; tool_use and tool_result turns are counted", async () => {
    const messages = [{ role: "user" as const, content: "Weather in Paris?" }];
    const plain = await client.messages.countTokens({ model: "gw-auto", messages });
    const withTools = await client.messages.countTokens({ model: "gw-auto", messages, tools: [weatherTool] });
    expect(withTools.input_tokens).toBeGreaterThan(plain.input_tokens);
    const withImage = await client.messages.countTokens({
      model: "gw-auto",
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }, { type: "image", source: { type: "url", url: "https://example.com/sky.png" } }] }],
    });
    expect(withImage.input_tokens).toBeGreaterThanOrEqual(plain.input_tokens + 1_600);
    const loop = await client.messages.countTokens({
      model: "gw-auto", tools: [weatherTool],
      messages: [
        ...messages,
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny and 21 degrees" }] },
      ],
    });
    expect(loop.input_tokens).toBeGreaterThan(withTools.input_tokens);
  });

  test("errors in Anthropic's envelope: a bad key is 401, a bad body 400, no max_tokens needed", async () => {
    const bad = new Anthropic({ apiKey: "gw_live_wrong", baseURL: gw.url.replace(/\/v1$/, ""), maxRetries: 0 });
    const denied = await bad.messages.countTokens({ model: "gw-auto", messages: [{ role: "user", content: "x" }] }).then(() => null, (e: unknown) => e);
    expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
    const res = await fetch(`${gw.url}/messages/count_tokens`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": gw.testKey }, body: JSON.stringify({ model: "gw-auto", messages: [] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string; param: string } };
    expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error", param: "messages" } });
    expect(res.headers.get("request-id")).toMatch(/^req_/);
  });
});
