// Real clients other than the openai SDK: the Vercel AI SDK and LangChain JS, unchanged, against
// gw's /chat/completions and /responses (docs/api.md "Chat completions", "Responses"), plain,
// streamed and with a tool.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
let provider: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  gw = await startTestGw();
  provider = createOpenAI({ apiKey: gw.testKey, baseURL: gw.url });
});
afterAll(() => gw.stop());

const weather = tool({
  description: "Current weather for a city",
  inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }),
});

describe("Vercel AI SDK", () => {
  for (const api of ["chat", "responses"] as const) {
    const model = () => (api === "chat" ? provider.chat("gw-auto") : provider.responses("gw-auto"));

    test(`${api}: generateText answers text and usage`, async () => {
      const r = await generateText({ model: model(), prompt: "Say hello." });
      expect(r.text.length).toBeGreaterThan(0);
      expect(r.usage.inputTokens).toBeGreaterThan(0);
      expect(r.usage.outputTokens).toBeGreaterThan(0);
      expect(r.finishReason).toBe("stop");
    });

    test(`${api}: streamText streams the same kind of answer`, async () => {
      const r = streamText({ model: model(), prompt: "Write one sentence about rivers." });
      let text = "";
      for await (const piece of r.textStream) text += piece;
      expect(text.length).toBeGreaterThan(0);
      expect(await r.text).toBe(text);
      expect((await r.usage).outputTokens).toBeGreaterThan(0);
    });

    test(`${api}: a tool call comes back with parsed input`, async () => {
      const r = await generateText({ model: model(), prompt: "What is the weather in Paris?", tools: { get_weather: weather } });
      expect(r.toolCalls.length).toBe(1);
      expect(r.toolCalls[0]!.toolName).toBe("get_weather");
      expect(typeof (r.toolCalls[0]!.input as { city: unknown }).city).toBe("string");
    });

    test(`${api}: an agent loop runs the tool and sends its result back for the final answer`, async () => {
      let ran = 0;
      const executing = tool({ ...weather, execute: async ({ city }: { city: string }) => (ran++, { city, temp_c: 18 }) });
      const r = await generateText({ model: model(), prompt: "What is the weather in Lima?", tools: { get_weather: executing }, stopWhen: stepCountIs(3) });
      expect(ran).toBe(1);
      expect(r.steps.length).toBe(2);
      expect(r.steps[1]!.finishReason).toBe("stop");
      expect(r.text.length).toBeGreaterThan(0);
    });

    test(`${api}: a streamed tool call`, async () => {
      const r = streamText({ model: model(), prompt: "What is the weather in Oslo?", tools: { get_weather: weather } });
      const calls = await r.toolCalls;
      expect(calls.map((c) => c.toolName)).toEqual(["get_weather"]);
    });
  }
});

describe("LangChain JS", () => {
  for (const useResponsesApi of [false, true]) {
    const chat = () => new ChatOpenAI({ model: "gw-auto", apiKey: gw.testKey, configuration: { baseURL: gw.url }, useResponsesApi, maxRetries: 0 });
    const api = useResponsesApi ? "responses" : "chat";

    test(`${api}: invoke answers an AIMessage with usage`, async () => {
      const m = await chat().invoke("Say hello.");
      expect(typeof m.content === "string" ? m.content : m.text).not.toBe("");
      expect(m.usage_metadata?.input_tokens).toBeGreaterThan(0);
    });

    test(`${api}: stream yields chunks that add up to the answer`, async () => {
      let text = "";
      let chunks = 0;
      for await (const chunk of await chat().stream("Write one sentence about lakes.")) {
        text += chunk.text;
        chunks++;
      }
      expect(chunks).toBeGreaterThan(1);
      expect(text.length).toBeGreaterThan(0);
    });

    test(`${api}: bindTools gets a tool call`, async () => {
      const m = await chat()
        .bindTools([{ type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }])
        .invoke("What is the weather in Rome?");
      expect(m.tool_calls?.[0]?.name).toBe("get_weather");
      expect(typeof m.tool_calls?.[0]?.args.city).toBe("string");
    });
  }
});
