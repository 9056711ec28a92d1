// The conformance suite (issue 4 item 9): the same cases against every adapter, through gw, with
// the official openai SDK as the client: text, multi-turn, system and developer, images, one and
// parallel tool calls, tool results, JSON mode, stop, streamed too; upstream errors, a time-out
// and a stream cut mid-way.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ProviderHealth } from "../../src/routing/health.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { anthropicDriver, type Driver, googleDriver, openaiDriver } from "./drivers.ts";

const WEATHER = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};
const TIME = {
  type: "function" as const,
  function: { name: "get_time", description: "Local time in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const TIMEOUT_MS = 800;
/** The function of a tool call (the SDK's type also admits custom tool calls). */
const fn = (c: OpenAI.Chat.Completions.ChatCompletionMessageToolCall) => {
  if (c.type !== "function") throw new Error(`expected a function tool call, got ${c.type}`);
  return c.function;
};

for (const make of [openaiDriver, anthropicDriver, googleDriver]) {
  describe(`conformance: ${make.name.replace("Driver", "")}-format upstream`, () => {
    let d: Driver;
    let gw: TestGw;
    let client: OpenAI;
    beforeAll(async () => {
      d = await make();
      gw = await startTestGw({ ...d.env, GW_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) });
      // The suite checks provider translation: every case must reach the upstream, so the
      // response cache is off (identical requests would otherwise be answered from it).
      client = new OpenAI({ baseURL: gw.url, apiKey: gw.key({ mode: "live" }), maxRetries: 0, defaultHeaders: { "x-gw-cache": "off" } });
    });
    afterAll(async () => {
      await gw.stop();
      await d.stop();
    });
    // Every case starts with a healthy provider: the scripted failures would open its circuit.
    afterEach(() => {
      gw.deps.health = new ProviderHealth();
    });
    const user = (content: string) => [{ role: "user" as const, content }];
    type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
    /** The same request as a plain call or through the SDK's stream helper. */
    const ask = (params: Params, stream: boolean) =>
      stream ? client.chat.completions.stream({ ...params, stream: true }).finalChatCompletion() : client.chat.completions.create(params);

    test("plain text: content, finish_reason stop, usage that adds up, a cost", async () => {
      d.text("The sea is large.");
      const r = await client.chat.completions.create({ model: d.model, messages: user("Tell me about the sea.") });
      expect(r.choices[0]!.message.content).toBe("The sea is large.");
      expect(r.choices[0]!.finish_reason).toBe("stop");
      expect(r.model).toBe(d.model);
      expect(r.usage!.prompt_tokens).toBeGreaterThan(0);
      expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
      expect((r as unknown as { gw: { cost: number; provider: string } }).gw.cost).toBeGreaterThan(0);
    });

    test("plain text streamed: the SDK's stream helper assembles it; the last chunk carries usage", async () => {
      d.text("Streaming works fine.");
      const stream = client.chat.completions.stream({ model: d.model, messages: user("Stream please."), stream_options: { include_usage: true } });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      stream.on("chunk", (c) => void chunks.push(c));
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.content).toBe("Streaming works fine.");
      expect(final.choices[0]!.finish_reason).toBe("stop");
      const withUsage = chunks.filter((c) => c.usage);
      expect(withUsage.length).toBeGreaterThan(0);
      const usage = withUsage.at(-1)!.usage!;
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      expect(usage.completion_tokens).toBeGreaterThan(0);
    });

    for (const stream of [false, true]) {
      const label = stream ? " (streamed)" : "";
      test(`multi-turn with system and developer messages reach the upstream as its system prompt${label}`, async () => {
        await ask({
          model: d.model,
          messages: [
            { role: "system", content: "You are terse." },
            { role: "developer", content: "Answer in English." },
            { role: "user", content: "Hi" },
            { role: "assistant", content: "Hello." },
            { role: "user", content: "How are you?" },
          ],
        }, stream);
        const system = d.systemText(d.lastBody());
        expect(system).toContain("You are terse.");
        expect(system).toContain("Answer in English.");
      });

      test(`image parts (base64 and URL) reach the upstream as images${label}`, async () => {
        await ask({
          model: d.model,
          messages: [{ role: "user", content: [
            { type: "text", text: "What is in these?" },
            { type: "image_url", image_url: { url: PNG } },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          ] }],
        }, stream);
        expect(d.imageCount(d.lastBody())).toBe(2);
      });
    }

    test("one tool call: name and JSON arguments, finish_reason tool_calls", async () => {
      d.tools([{ name: "get_weather", args: { city: "Paris" } }]);
      const r = await client.chat.completions.create({ model: d.model, messages: user("Weather in Paris?"), tools: [WEATHER] });
      const call = r.choices[0]!.message.tool_calls![0]!;
      expect(fn(call).name).toBe("get_weather");
      expect(JSON.parse(fn(call).arguments)).toEqual({ city: "Paris" });
      expect(call.id.length).toBeGreaterThan(0);
      expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    });

    test("parallel tool calls streamed arrive as proper OpenAI tool-call deltas", async () => {
      d.tools([{ name: "get_weather", args: { city: "Paris" } }, { name: "get_time", args: { city: "Tokyo" } }]);
      const stream = client.chat.completions.stream({ model: d.model, messages: user("Weather in Paris and time in Tokyo?"), tools: [WEATHER, TIME] });
      const final = await stream.finalChatCompletion();
      const calls = final.choices[0]!.message.tool_calls!;
      expect(calls.map((c) => fn(c).name)).toEqual(["get_weather", "get_time"]);
      expect(calls.map((c) => JSON.parse(fn(c).arguments))).toEqual([{ city: "Paris" }, { city: "Tokyo" }]);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    });

    for (const stream of [false, true]) {
      const label = stream ? " (streamed)" : "";
      test(`tool results go back to the upstream tied to their calls${label}`, async () => {
        d.text("It is sunny in Paris and 9 pm in Tokyo.");
        const r = await ask({
          model: d.model,
          tools: [WEATHER, TIME],
          messages: [
            { role: "user", content: "Weather in Paris and time in Tokyo?" },
            { role: "assistant", content: null, tool_calls: [
              { id: "call_w1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } },
              { id: "call_t1", type: "function", function: { name: "get_time", arguments: "{\"city\":\"Tokyo\"}" } },
            ] },
            { role: "tool", tool_call_id: "call_w1", content: "{\"sky\":\"sunny\"}" },
            { role: "tool", tool_call_id: "call_t1", content: "{\"time\":\"21:00\"}" },
          ],
        }, stream);
        expect(r.choices[0]!.message.content).toBe("It is sunny in Paris and 9 pm in Tokyo.");
        const expected = d.format === "google" ? ["get_weather", "get_time"] : ["call_w1", "call_t1"];
        expect(d.toolResultIds(d.lastBody())).toEqual(expected);
      });

      test(`JSON mode and stop sequences reach the upstream in its own terms${label}`, async () => {
        d.text("{\"ok\":true}");
        const r = await ask({ model: d.model, messages: user("Reply in JSON."), response_format: { type: "json_object" }, stop: ["END"] }, stream);
        expect(JSON.parse(r.choices[0]!.message.content!)).toEqual({ ok: true });
        const body = d.lastBody();
        expect(d.jsonMode(body)).toBe(true);
        expect(d.stopSequences(body)).toEqual(["END"]);
      });
    }

    for (const [status, code, expected] of [
      [400, "invalid_request", 400], [401, "upstream_error", 502], [429, "rate_limited", 429],
      [500, "upstream_error", 502], [503, "provider_unavailable", 503],
    ] as const) {
      test(`upstream ${status} -> ${expected} ${code}`, async () => {
        // A 5xx is retried once on the same model (docs/routing.md): both tries fail here.
        d.error(status, status >= 500 ? 2 : 1);
        const err = await client.chat.completions.create({ model: d.model, messages: user("hi") }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OpenAI.APIError);
        expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(expected);
        expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe(code);
      });
    }

    test("an upstream that does not answer in time -> 504 timeout, and the upstream sees the abort", async () => {
      const abortedBefore = d.aborted();
      d.delay(TIMEOUT_MS * 3);
      const err = await client.chat.completions.create({ model: d.model, messages: user("slow") }).catch((e: unknown) => e);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
      expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe("timeout");
      for (let i = 0; i < 100 && d.aborted() === abortedBefore; i++) await Bun.sleep(10);
      expect(d.aborted()).toBeGreaterThan(abortedBefore);
    });

    test("a stream cut mid-way ends in an error the SDK raises, after the text sent so far", async () => {
      d.cut(2, "one two three four five six seven eight nine ten");
      const stream = client.chat.completions.stream({ model: d.model, messages: user("Count.") });
      let text = "";
      stream.on("content", (delta) => void (text += delta));
      const err = await stream.finalChatCompletion().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(text.length).toBeLessThan("one two three four five six seven eight nine ten".length);
    });
  });
}
