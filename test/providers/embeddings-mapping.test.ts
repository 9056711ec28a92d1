// The embeddings mappers, pure (issue 4): request bodies and URLs (OpenAI-compatible, Azure,
// Gemini embedContent / batchEmbedContents) and reading replies back into the canonical result.
import { describe, expect, test } from "bun:test";
import { countTextTokens } from "../../src/analysis/tokens.ts";
import {
  buildEmbedRequests, MAX_BATCH, parseEmbedResponse, toEmbedBody, toEmbeddingResult,
} from "../../src/providers/google/embeddings.ts";
import {
  buildEmbeddingsRequest, decodeBase64, parseEmbeddings, toEmbeddingsBody,
} from "../../src/providers/openai-compatible/embeddings.ts";
import type { EmbedCall } from "../../src/providers/types.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { failureOf } from "../helpers/upstream-failures.ts";

const catalog = buildCatalog();
const openaiModel = catalog.get("openai/text-embedding-3-small")!;
const geminiModel = catalog.get("google/gemini-embedding-001")!;

function embedCall(model: CatalogModel, input: string[], dimensions?: number): EmbedCall {
  const controller = new AbortController();
  return { model, input, dimensions, controller, signal: controller.signal };
}

function base64Of(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return Buffer.from(view.buffer).toString("base64");
}

describe("catalog embedding models", () => {
  test("the models used here are embedding models", () => {
    expect(openaiModel.capabilities.embeddings).toBe(true);
    expect(geminiModel.capabilities.embeddings).toBe(true);
  });
});

describe("OpenAI-compatible request", () => {
  test("one and several inputs, floats asked for, dimensions only when given", () => {
    expect(toEmbeddingsBody(embedCall(openaiModel, ["a"]))).toEqual({ model: "text-embedding-3-small", input: ["a"], encoding_format: "float" });
    expect(toEmbeddingsBody(embedCall(openaiModel, ["a", "b"], 256))).toEqual({
      model: "text-embedding-3-small", input: ["a", "b"], encoding_format: "float", dimensions: 256,
    });
  });

  test("POST <base>/embeddings with a Bearer key", () => {
    const req = buildEmbeddingsRequest(embedCall(openaiModel, ["a"]), { baseUrl: "https://api.openai.com/v1/", apiKey: "sk-1" });
    expect(req.url).toBe("https://api.openai.com/v1/embeddings");
    expect(req.headers).toEqual({ "content-type": "application/json", authorization: "Bearer sk-1" });
    expect(JSON.parse(req.body)).toEqual({ model: "text-embedding-3-small", input: ["a"], encoding_format: "float" });
  });

  test("no key, no auth header", () => {
    const req = buildEmbeddingsRequest(embedCall(openaiModel, ["a"]), { baseUrl: "http://127.0.0.1:1/v1", apiKey: null });
    expect(req.headers).toEqual({ "content-type": "application/json" });
  });

  test("Azure: the deployment's embeddings URL with api-version, key in api-key", () => {
    const model: CatalogModel = { ...openaiModel, id: "azure-openai/emb prod", provider: "azure-openai", upstream_id: "emb prod" };
    const req = buildEmbeddingsRequest(embedCall(model, ["a"], 64), {
      baseUrl: "https://res.openai.azure.com", apiKey: "az-1", azure: { apiVersion: "2024-10-21" },
    });
    expect(req.url).toBe("https://res.openai.azure.com/openai/deployments/emb%20prod/embeddings?api-version=2024-10-21");
    expect(req.headers).toEqual({ "content-type": "application/json", "api-key": "az-1" });
    expect(JSON.parse(req.body)).toMatchObject({ input: ["a"], dimensions: 64 });
  });
});

describe("OpenAI-compatible response", () => {
  const call = embedCall(openaiModel, ["first", "second", "third"]);

  test("data put back in input order by index; usage and model read", () => {
    const body = {
      object: "list",
      data: [
        { object: "embedding", index: 2, embedding: [0.3] },
        { object: "embedding", index: 0, embedding: [0.1] },
        { object: "embedding", index: 1, embedding: [0.2] },
      ],
      model: "text-embedding-3-small-v2",
      usage: { prompt_tokens: 5, total_tokens: 5 },
    };
    expect(parseEmbeddings(JSON.stringify(body), call, "openai")).toEqual({
      model: "text-embedding-3-small-v2",
      data: [{ index: 0, embedding: [0.1] }, { index: 1, embedding: [0.2] }, { index: 2, embedding: [0.3] }],
      usage: { prompt_tokens: 5, total_tokens: 5 },
    });
  });

  test("a base64 embedding (an upstream that ignored encoding_format) is decoded as little-endian float32", () => {
    const values = [0.5, -0.25, 1.5, Math.fround(0.1)];
    const body = { data: [{ index: 0, embedding: base64Of(values) }], usage: { prompt_tokens: 1, total_tokens: 1 } };
    const out = parseEmbeddings(JSON.stringify(body), embedCall(openaiModel, ["x"]), "openai");
    expect(out.data[0]!.embedding).toEqual(values);
    expect(decodeBase64(base64Of([3.25]))).toEqual([3.25]);
    expect(decodeBase64(Buffer.from([1, 2, 3]).toString("base64"))).toBeNull();
  });

  test("without usage, tokens are counted locally; without model, the upstream id; without index, position", () => {
    const body = { data: [{ embedding: [1] }, { embedding: [2] }] };
    const out = parseEmbeddings(JSON.stringify(body), embedCall(openaiModel, ["hello world", "more text"]), "openai");
    const expected = countTextTokens("hello world") + countTextTokens("more text");
    expect(out.usage).toEqual({ prompt_tokens: expected, total_tokens: expected });
    expect(out.model).toBe("text-embedding-3-small");
    expect(out.data.map((d) => d.embedding)).toEqual([[1], [2]]);
  });

  test.each([
    ["not JSON", "<html>"],
    ["no data", JSON.stringify({ object: "list" })],
    ["too few embeddings", JSON.stringify({ data: [{ index: 0, embedding: [1] }] })],
    ["an index out of range", JSON.stringify({ data: [0, 1, 7].map((index) => ({ index, embedding: [1] })) })],
    ["a repeated index", JSON.stringify({ data: [0, 0, 1].map((index) => ({ index, embedding: [1] })) })],
    ["a vector of strings", JSON.stringify({ data: [0, 1, 2].map((index) => ({ index, embedding: ["1"] })) })],
    ["base64 that is not whole floats", JSON.stringify({ data: [0, 1, 2].map((index) => ({ index, embedding: "AAE=" })) })],
  ])("%s -> transient upstream_error", (_what, text) => {
    const f = failureOf(() => parseEmbeddings(text, call, "openai"));
    expect(f.failureClass).toBe("transient");
    expect(f.publicCode).toBe("upstream_error");
  });
});

describe("Gemini request", () => {
  test("one text: an EmbedContentRequest, outputDimensionality only when given", () => {
    expect(toEmbedBody("gemini-embedding-001", ["hi"])).toEqual({ content: { parts: [{ text: "hi" }] } });
    expect(toEmbedBody("gemini-embedding-001", ["hi"], 768)).toEqual({ content: { parts: [{ text: "hi" }] }, outputDimensionality: 768 });
  });

  test("several texts: a batch whose requests each name the model", () => {
    expect(toEmbedBody("gemini-embedding-001", ["a", "b"], 128)).toEqual({
      requests: [
        { model: "models/gemini-embedding-001", content: { parts: [{ text: "a" }] }, outputDimensionality: 128 },
        { model: "models/gemini-embedding-001", content: { parts: [{ text: "b" }] }, outputDimensionality: 128 },
      ],
    });
  });

  test("URLs per method, key in x-goog-api-key, a models/ prefix dropped", () => {
    const model: CatalogModel = { ...geminiModel, upstream_id: "models/gemini-embedding-001" };
    const options = { baseUrl: "https://generativelanguage.googleapis.com/", apiKey: "gk" };
    const [single] = buildEmbedRequests(embedCall(model, ["a"]), options);
    expect(single!.request.url).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:embedContent");
    expect(single!.request.headers).toEqual({ "content-type": "application/json", "x-goog-api-key": "gk" });
    const [batch] = buildEmbedRequests(embedCall(model, ["a", "b"]), options);
    expect(batch!.request.url).toEndWith("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(batch!.texts).toBe(2);
  });

  test(`more than ${MAX_BATCH} texts become several requests, in input order`, () => {
    const input = Array.from({ length: 2 * MAX_BATCH + 1 }, (_, i) => `t${i}`);
    const reqs = buildEmbedRequests(embedCall(geminiModel, input), { baseUrl: "http://h", apiKey: null });
    expect(reqs.map((r) => r.texts)).toEqual([MAX_BATCH, MAX_BATCH, 1]);
    expect(reqs.map((r) => r.request.url.split(":").at(-1))).toEqual(["batchEmbedContents", "batchEmbedContents", "embedContent"]);
    const second = JSON.parse(reqs[1]!.request.body) as { requests: Array<{ content: { parts: Array<{ text: string }> } }> };
    expect(second.requests[0]!.content.parts[0]!.text).toBe(`t${MAX_BATCH}`);
    expect(reqs[2]!.request.headers).toEqual({ "content-type": "application/json" });
  });
});

describe("Gemini response", () => {
  test("embedding.values and embeddings[].values", () => {
    expect(parseEmbedResponse(JSON.stringify({ embedding: { values: [0.1, 0.2] } }), 1)).toEqual({ vectors: [[0.1, 0.2]], promptTokens: null });
    const batch = { embeddings: [{ values: [1] }, { values: [2] }], usageMetadata: { promptTokenCount: 9 } };
    expect(parseEmbedResponse(JSON.stringify(batch), 2)).toEqual({ vectors: [[1], [2]], promptTokens: 9 });
  });

  test.each([
    ["not JSON", "oops", 1],
    ["neither embedding nor embeddings", "{}", 1],
    ["values that are not numbers", JSON.stringify({ embedding: { values: ["x"] } }), 1],
    ["fewer vectors than texts", JSON.stringify({ embeddings: [{ values: [1] }] }), 2],
  ])("%s -> transient upstream_error", (_what, text, texts) => {
    const f = failureOf(() => parseEmbedResponse(text, texts));
    expect(f.failureClass).toBe("transient");
    expect(f.publicCode).toBe("upstream_error");
  });

  test("usage: Gemini's counts when every part has them, else a local count of the whole input", () => {
    const call = embedCall(geminiModel, ["one two", "three"]);
    const reported = toEmbeddingResult(call, [{ vectors: [[1]], promptTokens: 3 }, { vectors: [[2]], promptTokens: 4 }]);
    expect(reported).toEqual({
      model: "gemini-embedding-001",
      data: [{ index: 0, embedding: [1] }, { index: 1, embedding: [2] }],
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    const estimated = toEmbeddingResult(call, [{ vectors: [[1]], promptTokens: 3 }, { vectors: [[2]], promptTokens: null }]);
    const expected = countTextTokens("one two") + countTextTokens("three");
    expect(estimated.usage).toEqual({ prompt_tokens: expected, total_tokens: expected });
  });
});
