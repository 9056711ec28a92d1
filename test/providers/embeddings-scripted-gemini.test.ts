// Proves the scripted Gemini upstream's embeddings endpoints speak Google's wire format: the
// official `@google/genai` SDK must accept its replies. The SDK sends every Gemini API embedding
// call (one content or several) to batchEmbedContents, so embedContent is checked with plain fetch.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, GoogleGenAI } from "@google/genai";
import { EMBED_DIMENSIONS, embedValues } from "../helpers/scripted-gemini-bodies.ts";
import { type ScriptedGemini, startScriptedGemini } from "../helpers/scripted-gemini.ts";

const MODEL = "gemini-embedding-001";
let upstream: ScriptedGemini;
let ai: GoogleGenAI;

beforeAll(async () => {
  upstream = await startScriptedGemini();
  ai = new GoogleGenAI({ apiKey: "gm-test", httpOptions: { baseUrl: upstream.url, apiVersion: "v1beta" } });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

function post(method: string, body: unknown, key = "gm-test"): Promise<Response> {
  return fetch(`${upstream.url}/v1beta/models/${MODEL}:${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": key },
    body: JSON.stringify(body),
  });
}

describe("batchEmbedContents through the SDK's models.embedContent", () => {
  test("one content: a full-size unit vector, derived from the text", async () => {
    const res = await ai.models.embedContent({ model: MODEL, contents: "Hello world" });
    const values = res.embeddings?.[0]?.values ?? [];
    expect(res.embeddings).toHaveLength(1);
    expect(values).toHaveLength(EMBED_DIMENSIONS);
    expect(values).toEqual(embedValues("Hello world"));
    expect(Math.hypot(...values)).toBeCloseTo(1, 5);
    const call = upstream.calls[0];
    expect(call?.path).toBe(`/v1beta/models/${MODEL}:batchEmbedContents`);
    expect(call?.headers["x-goog-api-key"]).toBe("gm-test");
    expect(call?.body).toMatchObject({ requests: [{ model: `models/${MODEL}`, content: { parts: [{ text: "Hello world" }] } }] });
  });

  test("several contents, outputDimensionality and taskType: vectors in order, truncated like Gemini", async () => {
    const res = await ai.models.embedContent({
      model: MODEL,
      contents: ["alpha", "beta", "gamma"],
      config: { outputDimensionality: 16, taskType: "RETRIEVAL_DOCUMENT" },
    });
    expect(res.embeddings?.map((e) => e.values)).toEqual(["alpha", "beta", "gamma"].map((t) => embedValues(t, 16)));
    // Truncation keeps the leading components of the full vector (not re-normalised).
    expect(embedValues("alpha", 16)).toEqual(embedValues("alpha").slice(0, 16));
    expect(upstream.callCount(":batchEmbedContents")).toBe(1);
  });

  test("the same text always gets the same vector; different texts differ", async () => {
    const res = await ai.models.embedContent({ model: MODEL, contents: ["same", "same", "other"], config: { outputDimensionality: 8 } });
    const [a, b, c] = res.embeddings?.map((e) => e.values) ?? [];
    expect(a).toEqual(b!);
    expect(a).not.toEqual(c!);
  });

  test("a scripted 429 reaches the SDK as an ApiError with Google's error body", async () => {
    upstream.script({ status: 429 });
    const err = await apiError(ai.models.embedContent({ model: MODEL, contents: "x" }));
    expect(err.status).toBe(429);
    expect(err.message).toContain("RESOURCE_EXHAUSTED");
  });

  test("validation errors are 400 INVALID_ARGUMENT the SDK raises", async () => {
    const tooBig = await apiError(ai.models.embedContent({ model: MODEL, contents: "x", config: { outputDimensionality: 5000 } }));
    expect(tooBig.status).toBe(400);
    expect(tooBig.message).toContain("INVALID_ARGUMENT");
    const many = Array.from({ length: 101 }, (_, i) => `t${i}`);
    const overLimit = await apiError(ai.models.embedContent({ model: MODEL, contents: many }));
    expect(overLimit.message).toContain("at most 100 requests can be in one batch");
  });

  test("a wrong key is Google's API_KEY_INVALID", async () => {
    const bad = new GoogleGenAI({ apiKey: "nope", httpOptions: { baseUrl: upstream.url, apiVersion: "v1beta" } });
    const err = await apiError(bad.models.embedContent({ model: MODEL, contents: "x" }));
    expect(err.status).toBe(400);
    expect(err.message).toContain("API_KEY_INVALID");
  });
});

describe("embedContent (the wire, with fetch)", () => {
  test("{content} -> {embedding: {values}}, outputDimensionality honoured", async () => {
    const res = await post("embedContent", { content: { parts: [{ text: "Hello" }] }, outputDimensionality: 4 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ embedding: { values: embedValues("Hello", 4) } });
  });

  test.each([
    ["an unknown field", { content: { parts: [{ text: "a" }] }, dimensions: 4 }, "Unknown name \"dimensions\""],
    ["no content", { outputDimensionality: 4 }, "content is not specified"],
    ["empty text", { content: { parts: [{ text: "" }] } }, "must not be empty"],
    ["a bad taskType", { content: { parts: [{ text: "a" }] }, taskType: "NOPE" }, "TaskType"],
    ["a fractional outputDimensionality", { content: { parts: [{ text: "a" }] }, outputDimensionality: 1.5 }, "TYPE_INT32"],
  ])("%s -> 400 INVALID_ARGUMENT", async (_what, body, text) => {
    const res = await post("embedContent", body);
    expect(res.status).toBe(400);
    const err = (await res.json()) as { error: { status: string; message: string } };
    expect(err.error.status).toBe("INVALID_ARGUMENT");
    expect(err.error.message).toContain(text);
  });

  test("a batch request naming another model -> 400", async () => {
    const res = await post("batchEmbedContents", { requests: [{ model: "models/other", content: { parts: [{ text: "a" }] } }] });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("must match");
  });

  test("no key -> 403; scripted errors apply as for generateContent", async () => {
    const res = await fetch(`${upstream.url}/v1beta/models/${MODEL}:embedContent`, { method: "POST", body: "{}" });
    expect(res.status).toBe(403);
    upstream.script({ status: 503 });
    expect((await post("embedContent", { content: { parts: [{ text: "a" }] } })).status).toBe(503);
    expect(upstream.callCount(":embedContent")).toBe(2);
  });
});
