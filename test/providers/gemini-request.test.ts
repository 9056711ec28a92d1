// The Gemini adapter's request mapping (pure): OpenAI chat request -> GenerateContentRequest.
import { describe, expect, test } from "bun:test";
import { buildRequest, SKIP_SIGNATURE, toContents, toGenerateContent } from "../../src/providers/google/request.ts";
import { mimeFromUrl } from "../../src/providers/google/parts.ts";
import { toGeminiSchema } from "../../src/providers/google/schema.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";
import type { ProviderCall } from "../../src/providers/types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { weatherTool } from "../fixtures/tools.ts";

const req = (messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: "google/gemini-2.5-flash", messages, ...extra });
const user = (content: ChatMessage["content"]): ChatMessage => ({ role: "user", content });

describe("messages -> contents and systemInstruction", () => {
  test("system and developer messages become one systemInstruction; user -> user, assistant -> model", () => {
    const body = toGenerateContent(req([
      { role: "system", content: "Be brief." },
      { role: "developer", content: [{ type: "text", text: "Use French." }] },
      user("Hi"),
      { role: "assistant", content: "Salut" },
      user("Again"),
    ]));
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }, { text: "Use French." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "Salut" }] },
      { role: "user", parts: [{ text: "Again" }] },
    ]);
  });

  test("consecutive same-role messages merge; empty messages are left out", () => {
    expect(toContents([user("a"), user("b"), { role: "assistant", content: null }, user("")])).toEqual([
      { role: "user", parts: [{ text: "a" }, { text: "b" }] },
    ]);
  });

  test("images: data: URLs inline, http(s) URLs as fileData with a MIME type from the extension", () => {
    const [content] = toContents([user([
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      { type: "image_url", image_url: { url: "https://example.com/cat.webp?size=2" } },
      { type: "image_url", image_url: "https://example.com/photo" },
    ])]);
    expect(content?.parts).toEqual([
      { text: "What is this?" },
      { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
      { fileData: { mimeType: "image/webp", fileUri: "https://example.com/cat.webp?size=2" } },
      { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/photo" } },
    ]);
    expect(mimeFromUrl("https://x.org/a/doc.PDF#p=2")).toBe("application/pdf");
    expect(mimeFromUrl("https://x.org/a.b/file")).toBe("image/jpeg");
  });

  test("assistant tool calls -> functionCall parts; tool results -> functionResponse by the call's name", () => {
    const contents = toContents([
      user("Weather in Paris and Rome?"),
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_time", arguments: "not json" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"temp":21}' },
      { role: "tool", tool_call_id: "call_2", content: "noon" },
      { role: "tool", tool_call_id: "call_9", name: "lookup", content: "[1,2]" },
    ]);
    expect(contents[1]).toEqual({
      role: "model",
      parts: [
        // No signature came back: the first call gets Gemini's documented stand-in.
        { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SKIP_SIGNATURE },
        { functionCall: { name: "get_time", args: {} } },
      ],
    });
    expect(contents[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "get_weather", response: { temp: 21 } } },
        { functionResponse: { name: "get_time", response: { content: "noon" } } },
        { functionResponse: { name: "lookup", response: { content: "[1,2]" } } },
      ],
    });
  });

  test("a thought signature a client sends Google's way (extra_content.google) is replayed on its call", () => {
    const signed = { id: "c", type: "function" as const, function: { name: "f", arguments: "{}" }, extra_content: { google: { thought_signature: "c2ln" } } };
    const [, model] = toContents([user("x"), { role: "assistant", content: "Let me check.", tool_calls: [signed] }]);
    expect(model?.parts).toEqual([{ text: "Let me check." }, { functionCall: { name: "f", args: {} }, thoughtSignature: "c2ln" }]);
  });
});

describe("tools and tool_choice", () => {
  test("tools -> functionDeclarations with a schema Gemini accepts", () => {
    const body = toGenerateContent(req([user("x")], { tools: [weatherTool] }));
    expect(body.tools).toEqual([{
      functionDeclarations: [{
        name: "get_weather",
        description: "Weather for a city",
        parameters: { type: "OBJECT", properties: { city: { type: "STRING" }, days: { type: "INTEGER" } }, required: ["city", "days"] },
      }],
    }]);
    expect(body.toolConfig).toBeUndefined();
  });

  test("tool_choice auto, required, none and a named function", () => {
    const config = (tool_choice: ChatRequest["tool_choice"]) => toGenerateContent(req([user("x")], { tools: [weatherTool], tool_choice })).toolConfig;
    expect(config("auto")).toEqual({ functionCallingConfig: { mode: "AUTO" } });
    expect(config("required")).toEqual({ functionCallingConfig: { mode: "ANY" } });
    expect(config("none")).toEqual({ functionCallingConfig: { mode: "NONE" } });
    expect(config({ type: "function", function: { name: "get_weather" } })).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] },
    });
    expect(toGenerateContent(req([user("x")], { tool_choice: "required" })).toolConfig).toBeUndefined();
  });

  test("schema: rejected keys dropped, nullable types, $ref inlined, const and oneOf rewritten", () => {
    const schema = toGeminiSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      additionalProperties: false,
      properties: {
        note: { type: ["string", "null"], format: "uri", description: "optional" },
        kind: { const: "a" },
        when: { type: "string", format: "date-time" },
        item: { $ref: "#/$defs/Item" },
        either: { oneOf: [{ type: "string" }, { type: "integer" }] },
        maybe: { anyOf: [{ type: "number" }, { type: "null" }], description: "n" },
      },
      $defs: { Item: { type: "object", properties: { id: { type: "integer" } }, additionalProperties: false } },
    });
    expect(schema).toEqual({
      type: "OBJECT",
      properties: {
        note: { type: "STRING", nullable: true, description: "optional" },
        kind: { type: "STRING", enum: ["a"] },
        when: { type: "STRING", format: "date-time" },
        item: { type: "OBJECT", properties: { id: { type: "INTEGER" } } },
        either: { anyOf: [{ type: "STRING" }, { type: "INTEGER" }] },
        maybe: { type: "NUMBER", nullable: true, description: "n" },
      },
    });
    // Gemini rejects an OBJECT without properties: a parameterless tool goes without parameters.
    expect(toGeminiSchema({ type: "object", properties: {} })).toBeNull();
  });
});

describe("generationConfig", () => {
  test("max tokens, temperature, topP, stop, seed and penalties", () => {
    const g = toGenerateContent(req([user("x")], {
      max_tokens: 50, temperature: 0.2, top_p: 0.9, stop: "END", seed: 7, presence_penalty: 0.1, frequency_penalty: 0.3,
    })).generationConfig;
    expect(g).toEqual({ maxOutputTokens: 50, temperature: 0.2, topP: 0.9, stopSequences: ["END"], seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.3 });
    const g2 = toGenerateContent(req([user("x")], { max_tokens: 50, max_completion_tokens: 80, stop: ["a", "b"] })).generationConfig;
    expect(g2).toEqual({ maxOutputTokens: 80, stopSequences: ["a", "b"] });
    expect(toGenerateContent(req([user("x")], { stop: null })).generationConfig).toBeUndefined();
  });

  test("JSON mode: json_object -> responseMimeType; json_schema -> also responseJsonSchema, unchanged", () => {
    const obj = toGenerateContent(req([user("x")], { response_format: { type: "json_object" } })).generationConfig;
    expect(obj).toEqual({ responseMimeType: "application/json" });
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    const js = toGenerateContent(req([user("x")], { response_format: { type: "json_schema", json_schema: { name: "A", strict: true, schema } } })).generationConfig;
    expect(js).toEqual({ responseMimeType: "application/json", responseJsonSchema: schema });
  });

  test("gw extension fields and OpenAI-only fields never go upstream", () => {
    const body = toGenerateContent(req([user("x")], {
      routing: { profile: "cheap" }, max_cost: 0.01, optimization: {}, metadata: { a: "b" }, tags: ["t"], cache: {}, gw: {},
      stream: true, stream_options: { include_usage: true }, n: 1, user: "u",
    }));
    expect(Object.keys(body)).toEqual(["contents"]);
  });
});

describe("the HTTP request", () => {
  const model = buildCatalog().get("google/gemini-2.5-flash")!;
  const call = (request: ChatRequest): ProviderCall => {
    const controller = new AbortController();
    return { model, request, controller, signal: controller.signal, attempt: 0 };
  };

  test("generateContent and streamGenerateContent?alt=sse on v1beta, key in x-goog-api-key", () => {
    const whole = buildRequest(call(req([user("x")])), { baseUrl: "https://g.example/", apiKey: "k" }, false);
    expect(whole.url).toBe("https://g.example/v1beta/models/gemini-2.5-flash:generateContent");
    expect(whole.headers).toEqual({ "content-type": "application/json", "x-goog-api-key": "k" });
    const streamed = buildRequest(call(req([user("x")])), { baseUrl: "https://g.example", apiKey: null }, true);
    expect(streamed.url).toBe("https://g.example/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(streamed.headers["x-goog-api-key"]).toBeUndefined();
    expect(JSON.parse(streamed.body)).toEqual({ contents: [{ role: "user", parts: [{ text: "x" }] }] });
  });
});
