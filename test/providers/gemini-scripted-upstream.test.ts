// Proves the scripted Gemini upstream speaks Google's wire format: the official `@google/genai`
// SDK, pointed at it, must accept every reply (whole, streamed, function calls, usage, errors).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, FinishReason, GoogleGenAI, Type } from "@google/genai";
import { type ScriptedGemini, startScriptedGemini } from "../helpers/scripted-gemini.ts";

let upstream: ScriptedGemini;
let ai: GoogleGenAI;

beforeAll(async () => {
  upstream = await startScriptedGemini();
  // v1beta: the version gw's adapter calls (the SDK defaults to v1, tested once below).
  ai = new GoogleGenAI({ apiKey: "gm-test", httpOptions: { baseUrl: upstream.url, apiVersion: "v1beta" } });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

const weather = {
  functionDeclarations: [{
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
  }],
};

describe("generateContent", () => {
  test("text: the SDK reads text, finish reason, usage and ids", async () => {
    const res = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Hello there, how are you?" });
    expect(res.text).toBe("Echo: Hello there, how are you?");
    expect(res.candidates?.[0]?.finishReason).toBe(FinishReason.STOP);
    expect(res.modelVersion).toBe("gemini-2.5-flash");
    expect(res.responseId).toBeString();
    const u = res.usageMetadata;
    expect(u?.totalTokenCount).toBe((u?.promptTokenCount ?? 0) + (u?.candidatesTokenCount ?? 0));
    const call = upstream.calls[0];
    expect(call?.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(call?.headers["x-goog-api-key"]).toBe("gm-test");
    expect(call?.body).toMatchObject({ contents: [{ role: "user", parts: [{ text: "Hello there, how are you?" }] }] });
  });

  test("the SDK's default version v1 is served too", async () => {
    const v1 = new GoogleGenAI({ apiKey: "gm-test", httpOptions: { baseUrl: upstream.url } });
    const res = await v1.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" });
    expect(res.text).toBe("Echo: hi");
    expect(upstream.calls[0]?.path).toBe("/v1/models/gemini-2.5-flash:generateContent");
  });

  test("a request with tools gets a function call, read by response.functionCalls", async () => {
    const res = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "Weather in Paris?",
      config: { tools: [weather] },
    });
    expect(res.functionCalls).toEqual([{ name: "get_weather", args: {} }]);
  });

  test("scripted parallel calls, thought signature, cached and thought tokens", async () => {
    upstream.script({
      functionCalls: [{ name: "a", args: { x: 1 } }, { name: "b", args: { y: "z" } }],
      thoughtSignature: "c2lnbmF0dXJl",
      cachedTokens: 100,
      thoughtsTokens: 7,
    });
    const res = await ai.models.generateContent({ model: "gemini-2.5-pro", contents: "go" });
    expect(res.functionCalls?.map((c) => [c.name, c.args])).toEqual([["a", { x: 1 }], ["b", { y: "z" }]]);
    expect(res.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toBe("c2lnbmF0dXJl");
    const u = res.usageMetadata;
    expect(u?.cachedContentTokenCount).toBe(100);
    expect(u?.thoughtsTokenCount).toBe(7);
    expect(u?.promptTokenCount).toBeGreaterThan(100); // includes the cached part
    expect(u?.totalTokenCount).toBe((u?.promptTokenCount ?? 0) + (u?.candidatesTokenCount ?? 0) + 7);
  });

  test("a SAFETY finish has no content; a blocked prompt has promptFeedback and no candidates", async () => {
    upstream.script({ finishReason: "SAFETY" });
    const res = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "bad" });
    expect(res.candidates?.[0]?.finishReason).toBe(FinishReason.SAFETY);
    expect(res.text).toBeUndefined();
    upstream.script({ blockReason: "SAFETY" });
    const blocked = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "worse" });
    expect(blocked.candidates).toBeUndefined();
    expect(String(blocked.promptFeedback?.blockReason)).toBe("SAFETY");
  });
});

describe("generateContentStream", () => {
  test("text arrives in several events with cumulative usage and a final finishReason", async () => {
    const stream = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "stream me some words please" });
    const texts: string[] = [];
    const finishes: unknown[] = [];
    const totals: number[] = [];
    for await (const chunk of stream) {
      texts.push(chunk.text ?? "");
      finishes.push(chunk.candidates?.[0]?.finishReason);
      totals.push(chunk.usageMetadata?.candidatesTokenCount ?? 0);
    }
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join("")).toBe("Echo: stream me some words please");
    expect(finishes.at(-1)).toBe(FinishReason.STOP);
    expect(finishes.slice(0, -1).every((f) => f === undefined)).toBe(true);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(upstream.calls[0]?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    expect(upstream.calls[0]?.query.alt).toBe("sse");
  });

  test("function calls stream one per event", async () => {
    upstream.script({ functionCalls: [{ name: "a", args: {} }, { name: "b", args: { k: 2 } }] });
    const stream = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "go", config: { tools: [weather] } });
    const names: string[] = [];
    for await (const chunk of stream) for (const c of chunk.functionCalls ?? []) names.push(c.name ?? "");
    expect(names).toEqual(["a", "b"]);
  });
});

describe("errors", () => {
  test("a wrong key is Google's 400 API_KEY_INVALID, seen as the SDK's ApiError", async () => {
    const bad = new GoogleGenAI({ apiKey: "wrong", httpOptions: { baseUrl: upstream.url } });
    const err = await bad.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toContain("API_KEY_INVALID");
  });

  test("a scripted 429 and a scripted 503 on a stream", async () => {
    upstream.script({ status: 429 });
    const err = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(429);
    expect((err as ApiError).message).toContain("RESOURCE_EXHAUSTED");
    upstream.script({ status: 503 });
    const err2 = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hi" }).catch((e: unknown) => e);
    expect((err2 as ApiError).status).toBe(503);
  });

  test("an error object mid-stream is thrown by the SDK", async () => {
    upstream.script({ errorAfterEvents: 1 });
    const stream = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "one two three four five six" });
    const err = await (async () => {
      for await (const _ of stream) void _;
    })().catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(500);
  });

  test("the request checks: missing contents, unknown fields, schema keys Gemini rejects", async () => {
    const post = (body: unknown) =>
      fetch(`${upstream.url}/v1beta/models/m:generateContent`, {
        method: "POST",
        headers: { "x-goog-api-key": "gm-test", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    const unknown = await post({ contents: [{ role: "user", parts: [{ text: "x" }] }], routing: {} });
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('Unknown name "routing"');
    const schema = await post({
      contents: [{ role: "user", parts: [{ text: "x" }] }],
      tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT", properties: { a: { type: "STRING" } }, additionalProperties: false } }] }],
    });
    expect(((await schema.json()) as { error: { message: string } }).error.message).toContain('Unknown name "additionalProperties"');
    const turn = (fc: object) => ({
      contents: [
        { role: "user", parts: [{ text: "x" }] },
        { role: "model", parts: [fc, { functionCall: { name: "g", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] },
      ],
    });
    const mismatch = await post(turn({ functionCall: { name: "f", args: {} } }));
    expect(((await mismatch.json()) as { error: { message: string } }).error.message).toContain("number of function response parts");
    const strict = await startScriptedGemini({ requireThoughtSignatures: true });
    const unsigned = await fetch(`${strict.url}/v1beta/models/m:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": "gm-test" },
      body: JSON.stringify(turn({ functionCall: { name: "f", args: {} } })),
    });
    expect(((await unsigned.json()) as { error: { message: string } }).error.message).toContain("missing a thought_signature");
    await strict.stop();
    const noKey = await fetch(`${upstream.url}/v1beta/models/m:generateContent`, { method: "POST", body: "{}" });
    expect(noKey.status).toBe(403);
  });
});
