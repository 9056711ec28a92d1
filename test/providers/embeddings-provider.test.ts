// Provider.embed end to end (issue 4): the OpenAI-compatible base and the Gemini adapter against
// the scripted upstreams over real HTTP through transport.ts, with catalog embedding models.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { countTextTokens } from "../../src/analysis/tokens.ts";
import { MAX_BATCH } from "../../src/providers/google/embeddings.ts";
import { googleProvider } from "../../src/providers/google/index.ts";
import { openAICompatibleProvider } from "../../src/providers/openai-compatible/index.ts";
import type { EmbedCall, Provider } from "../../src/providers/types.ts";
import type { EmbeddingResult } from "../../src/canonical/embeddings.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { embedValues } from "../helpers/scripted-gemini-bodies.ts";
import { type ScriptedGemini, startScriptedGemini } from "../helpers/scripted-gemini.ts";
import { type ScriptedUpstream, startScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { rejection } from "../helpers/upstream-failures.ts";

const catalog = buildCatalog();
const openaiModel = catalog.get("openai/text-embedding-3-small")!;
const geminiModel = catalog.get("google/gemini-embedding-001")!;

let openaiUpstream: ScriptedUpstream;
let gemini: ScriptedGemini;
let openai: Provider;
let google: Provider;

beforeAll(async () => {
  openaiUpstream = await startScriptedUpstream();
  gemini = await startScriptedGemini();
  openai = openAICompatibleProvider("openai", { baseUrl: openaiUpstream.url, apiKey: "sk-test" });
  google = googleProvider("google", { baseUrl: gemini.url, apiKey: "gm-test" });
});
afterEach(() => {
  openaiUpstream.reset();
  gemini.reset();
});
afterAll(async () => {
  await openaiUpstream.stop();
  await gemini.stop();
});

function embedCall(model: CatalogModel, input: string[], dimensions?: number): EmbedCall {
  const controller = new AbortController();
  return { model, input, dimensions, controller, signal: controller.signal };
}

function embed(provider: Provider, call: EmbedCall): Promise<EmbeddingResult> {
  if (!provider.embed) throw new Error(`${provider.id} has no embed()`);
  return provider.embed(call);
}

const estimate = (input: string[]): number => input.reduce((n, t) => n + countTextTokens(t), 0);

describe("OpenAI-compatible embed()", () => {
  test("several inputs: vectors in input order, the upstream's usage and model", async () => {
    const out = await embed(openai, embedCall(openaiModel, ["first text", "second"]));
    expect(out.model).toBe("text-embedding-3-small");
    expect(out.data.map((d) => d.index)).toEqual([0, 1]);
    expect(out.data[0]!.embedding).toHaveLength(8); // the fake's default size
    expect(out.data[0]!.embedding).not.toEqual(out.data[1]!.embedding);
    expect(out.usage.prompt_tokens).toBeGreaterThan(0);
    expect(out.usage.total_tokens).toBe(out.usage.prompt_tokens);
    const call = openaiUpstream.calls[0];
    expect(call?.path).toBe("/v1/embeddings");
    expect(call?.headers.authorization).toBe("Bearer sk-test");
    expect(call?.body).toEqual({ model: "text-embedding-3-small", input: ["first text", "second"], encoding_format: "float" });
  });

  test("dimensions reach the upstream and size the vectors", async () => {
    const out = await embed(openai, embedCall(openaiModel, ["x"], 32));
    expect(out.data[0]!.embedding).toHaveLength(32);
    expect(openaiUpstream.calls[0]?.body).toMatchObject({ dimensions: 32 });
  });

  test("a base64 reply is decoded", async () => {
    const floats = Buffer.from(new Float32Array([0.5, -2]).buffer).toString("base64");
    openaiUpstream.script({ body: { object: "list", data: [{ object: "embedding", index: 0, embedding: floats }], model: "m", usage: { prompt_tokens: 2, total_tokens: 2 } } });
    const out = await embed(openai, embedCall(openaiModel, ["x"]));
    expect(out.data[0]!.embedding).toEqual([0.5, -2]);
  });

  test("upstream 429 -> rate_limit", async () => {
    openaiUpstream.script({ status: 429, headers: { "retry-after": "3" } });
    const f = await rejection(embed(openai, embedCall(openaiModel, ["x"])));
    expect(f.failureClass).toBe("rate_limit");
    expect(f.upstreamStatus).toBe(429);
    expect(f.retryAfter).toBe(3);
  });

  test("upstream 400 (its own validation) -> caller, with the upstream's explanation", async () => {
    const f = await rejection(embed(openai, embedCall(openaiModel, [])));
    expect(f.failureClass).toBe("caller");
    expect(f.canFallback).toBe(false);
    expect(f.detail).toContain("'input' is a required property");
  });

  test("a 200 with a body of another shape -> transient upstream_error", async () => {
    openaiUpstream.script({ body: { object: "list", result: [] } });
    const f = await rejection(embed(openai, embedCall(openaiModel, ["x"])));
    expect(f.failureClass).toBe("transient");
    expect(f.publicCode).toBe("upstream_error");
  });
});

describe("Gemini embed()", () => {
  test("one input: embedContent, the fake's vector, usage counted locally (Gemini sends none)", async () => {
    const out = await embed(google, embedCall(geminiModel, ["Hello world"], 16));
    expect(out).toEqual({
      model: "gemini-embedding-001",
      data: [{ index: 0, embedding: embedValues("Hello world", 16) }],
      usage: { prompt_tokens: estimate(["Hello world"]), total_tokens: estimate(["Hello world"]) },
    });
    const call = gemini.calls[0];
    expect(call?.path).toBe("/v1beta/models/gemini-embedding-001:embedContent");
    expect(call?.headers["x-goog-api-key"]).toBe("gm-test");
    expect(call?.body).toEqual({ content: { parts: [{ text: "Hello world" }] }, outputDimensionality: 16 });
  });

  test("several inputs: one batchEmbedContents, vectors in order, full size without dimensions", async () => {
    const input = ["a", "b", "c"];
    const out = await embed(google, embedCall(geminiModel, input));
    expect(out.data.map((d) => d.embedding)).toEqual(input.map((t) => embedValues(t)));
    expect(gemini.callCount(":batchEmbedContents")).toBe(1);
    expect(gemini.callCount()).toBe(1);
  });

  test(`more than ${MAX_BATCH} inputs: several batches in turn, joined in input order`, async () => {
    const input = Array.from({ length: MAX_BATCH + 20 }, (_, i) => `text number ${i}`);
    const out = await embed(google, embedCall(geminiModel, input, 4));
    expect(gemini.callCount(":batchEmbedContents")).toBe(2);
    expect(out.data).toHaveLength(input.length);
    expect(out.data.map((d) => d.index)).toEqual(input.map((_, i) => i));
    expect(out.data[MAX_BATCH + 7]!.embedding).toEqual(embedValues(`text number ${MAX_BATCH + 7}`, 4));
  });

  test("Gemini's own token count is used when it sends one", async () => {
    gemini.script({ body: { embeddings: [{ values: [1] }, { values: [2] }], usageMetadata: { promptTokenCount: 42 } } });
    const out = await embed(google, embedCall(geminiModel, ["a", "b"]));
    expect(out.usage).toEqual({ prompt_tokens: 42, total_tokens: 42 });
  });

  test("upstream 429 -> rate_limit, Retry-After from RetryInfo", async () => {
    gemini.script({ status: 429 });
    const f = await rejection(embed(google, embedCall(geminiModel, ["a", "b"])));
    expect(f.failureClass).toBe("rate_limit");
    expect(f.retryAfter).toBe(7);
  });

  test("upstream 400 INVALID_ARGUMENT (its own validation) -> caller, with Google's message", async () => {
    const f = await rejection(embed(google, embedCall(geminiModel, ["a"], 5000)));
    expect(f.failureClass).toBe("caller");
    expect(f.upstreamStatus).toBe(400);
    expect(f.detail).toContain("output_dimensionality");
  });

  test("a wrong key -> credential (Google answers 400 API_KEY_INVALID)", async () => {
    const bad = googleProvider("google", { baseUrl: gemini.url, apiKey: "wrong" });
    const f = await rejection(embed(bad, embedCall(geminiModel, ["a"])));
    expect(f.failureClass).toBe("credential");
  });

  test("a failing second batch fails the call; the first batch's vectors are not returned", async () => {
    const input = Array.from({ length: MAX_BATCH + 1 }, (_, i) => `t${i}`);
    gemini.script({ body: { embeddings: input.slice(0, MAX_BATCH).map(() => ({ values: [0] })) } });
    gemini.script({ status: 503 });
    const f = await rejection(embed(google, embedCall(geminiModel, input, 4)));
    expect(f.failureClass).toBe("transient");
    expect(gemini.callCount()).toBe(2);
  });

  test("a reply with fewer vectors than texts -> transient upstream_error", async () => {
    gemini.script({ body: { embeddings: [{ values: [1] }] } });
    const f = await rejection(embed(google, embedCall(geminiModel, ["a", "b"])));
    expect(f.failureClass).toBe("transient");
    expect(f.publicCode).toBe("upstream_error");
  });
});
