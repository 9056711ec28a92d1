// POST /embeddings with live keys, through a scripted OpenAI and a scripted Gemini: what gw sends
// upstream, what it answers, how it meters and logs, and how upstream failures and disabled or
// blocked providers answer (docs/api.md "Embeddings", "Errors").
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { updateProject } from "../../../src/admin/projects.ts";
import { countTextTokens } from "../../../src/analysis/tokens.ts";
import modelsFile from "../../../src/routing/models.json" with { type: "json" };
import { embedValues } from "../../helpers/scripted-gemini-bodies.ts";
import type { ScriptedGemini } from "../../helpers/scripted-gemini.ts";
import { embeddingsJson } from "../../helpers/scripted-upstream-bodies.ts";
import type { ScriptedUpstream } from "../../helpers/scripted-upstream.ts";
import { geminiUpstream, openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import { type TestGw, get, post } from "../../helpers/test-gw.ts";
import { requestDetail } from "../../helpers/flow-helpers.ts";

let upstream: ScriptedUpstream;
let gemini: ScriptedGemini;
let gw: TestGw;
let live: string;
let liveLog: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: upstream, gemini }, stop } = await startGw({
    upstreams: { openai: openaiUpstream({}, "sk-upstream-embed"), gemini: geminiUpstream() },
  }));
  live = gw.key({ mode: "live" });
  liveLog = gw.key({ mode: "live", scopes: ["embeddings", "requests"] });
});
afterEach(() => {
  upstream.reset();
  gemini.reset();
});
afterAll(() => stop());

interface EmbeddingsBody {
  data: Array<{ index: number; embedding: number[] }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  gw: { request_id: string; provider: string; cost: number; saved: number; test: boolean; fallbacks: number };
}

const embed = (body: unknown, key = live) => post(`${gw.url}/embeddings`, key, body);
const price = (id: string): number => modelsFile.models.find((m) => m.id === id)!.input_price;
/** What the scripted OpenAI answers for these texts (its vectors, as floats). */
const upstreamVectors = (input: string[], dimensions?: number): number[][] =>
  (JSON.parse(embeddingsJson({ model: "m", input, dimensions })!) as EmbeddingsBody).data.map((d) => d.embedding);

async function errorOf(res: Response): Promise<{ code: string; param: string | null; message: string }> {
  return ((await res.json()) as { error: { code: string; param: string | null; message: string } }).error;
}

describe('through the openai SDK with a live key (docs/api.md "Embeddings")', () => {
  test("base64 by default: the SDK decodes the upstream's vectors as float32; floats are asked upstream", async () => {
    const client = new OpenAI({ apiKey: live, baseURL: gw.url, maxRetries: 0 });
    const out = await client.embeddings.create({ model: "text-embedding-3-small", input: ["alpha", "beta"] });
    expect(out.model).toBe("openai/text-embedding-3-small");
    expect(out.data.map((d) => d.embedding)).toEqual(upstreamVectors(["alpha", "beta"]).map((v) => v.map(Math.fround)));
    expect(upstream.calls[0]?.headers.authorization).toBe("Bearer sk-upstream-embed");
    expect(upstream.calls[0]?.body).toEqual({ model: "text-embedding-3-small", input: ["alpha", "beta"], encoding_format: "float" });
  });

  test("encoding_format float: the upstream's numbers exactly", async () => {
    const client = new OpenAI({ apiKey: live, baseURL: gw.url, maxRetries: 0 });
    const out = await client.embeddings.create({ model: "openai/text-embedding-3-large", input: "gamma", encoding_format: "float" });
    expect(out.data[0]!.embedding).toEqual(upstreamVectors(["gamma"])[0]!);
  });
});

describe('dimensions (docs/api.md "Embeddings")', () => {
  test("forwarded to OpenAI, and the vectors have that size", async () => {
    const body = (await (await embed({ model: "text-embedding-3-small", input: "d", dimensions: 64 })).json()) as EmbeddingsBody;
    expect(body.data[0]!.embedding).toHaveLength(64);
    expect(upstream.calls[0]?.body).toMatchObject({ dimensions: 64 });
  });

  test("mistral-embed has a fixed size: 400 naming dimensions, before its provider is even looked at", async () => {
    const res = await embed({ model: "mistral/mistral-embed", input: "d", dimensions: 512 });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: "invalid_request", param: "dimensions" });
  });

  test("Gemini: outputDimensionality, usage counted with gpt-tokenizer and priced", async () => {
    const res = await embed({ model: "google/gemini-embedding-001", input: ["one text", "two"], dimensions: 8 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as EmbeddingsBody;
    expect(body.model).toBe("google/gemini-embedding-001");
    expect(body.data.map((d) => d.embedding)).toEqual([embedValues("one text", 8), embedValues("two", 8)]);
    const tokens = countTextTokens("one text") + countTextTokens("two");
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(body.gw.cost).toBeCloseTo((tokens * price("google/gemini-embedding-001")) / 1e6, 12);
    expect(gemini.calls[0]?.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
  });
});

describe('metered and logged (docs/api.md "Request log")', () => {
  test("cost = prompt tokens x input price, saved 0; the log row and trace, without the input text", async () => {
    const secret = "private words about project nightjar";
    const res = await embed({ model: "text-embedding-3-small", input: [secret, "other"] }, liveLog);
    expect(res.status).toBe(200);
    const body = (await res.json()) as EmbeddingsBody;
    const tokens = body.usage.prompt_tokens;
    expect(tokens).toBeGreaterThan(0);
    const cost = (tokens * price("openai/text-embedding-3-small")) / 1e6;
    expect(body.gw).toMatchObject({ provider: "openai", saved: 0, test: false, fallbacks: 0 });
    expect(body.gw.cost).toBeCloseTo(cost, 12);

    await gw.drain();
    const list = (await (await get(`${gw.url}/requests?limit=1`, liveLog)).json()) as { data: Array<Record<string, unknown>> };
    expect(list.data[0]).toMatchObject({
      request_id: body.gw.request_id, endpoint: "embeddings", requested_model: "text-embedding-3-small",
      selected_model: "openai/text-embedding-3-small", provider: "openai", input_tokens: tokens, output_tokens: 0,
      saved: 0, status: 200, error: null, test: false,
    });
    expect(list.data[0]!.cost as number).toBeCloseTo(cost, 12);

    const { body: detail } = await requestDetail(gw.url, liveLog, body.gw.request_id);
    expect(detail.trace.spans.map((s) => s.name)).toEqual(["request", "authentication", "parse", "guard", "routing", "llm"]);
    expect(detail.trace.spans[5]?.attributes).toMatchObject({ provider: "openai", model: "openai/text-embedding-3-small", inputs: 2 });
    expect(detail.trace.attempts).toHaveLength(1);
    expect(JSON.stringify(detail)).not.toContain("nightjar");
  });
});

describe('unavailable, blocked and failing providers (docs/api.md "Errors")', () => {
  test("a provider without a key -> 503 no_model_available", async () => {
    const res = await embed({ model: "mistral-embed", input: "x" });
    expect(res.status).toBe(503);
    const error = await errorOf(res);
    expect(error.code).toBe("no_model_available");
    expect(error.message).toContain("not enabled");
  });

  test("a project policy blocking the provider -> 503 no_model_available, naming the policy", async () => {
    const id = gw.newProject("no-openai");
    updateProject(gw.deps.repos.projects, id, { policy: { blocked_providers: ["openai"] } }, []);
    const res = await embed({ input: "x" }, gw.key({ mode: "live", projectId: id }));
    expect(res.status).toBe(503);
    expect((await errorOf(res)).message).toContain("blocked");
    expect(upstream.callCount()).toBe(0);
  });

  test("an upstream 500, then 500 on the retry -> 502 upstream_error, two attempts logged", async () => {
    upstream.script({ status: 500 }, 2);
    const res = await embed({ input: "x" }, liveLog);
    expect(res.status).toBe(502);
    expect((await errorOf(res)).code).toBe("upstream_error");
    expect(upstream.callCount("/v1/embeddings")).toBe(2);
    await gw.drain();
    const { body } = await requestDetail(gw.url, liveLog, res.headers.get("x-gw-request-id")!);
    expect(body.status).toBe(502);
    expect(body.error_category).toBe("UPSTREAM_ERROR");
    expect(body.trace.attempts.map((a) => [a.status, a.upstream_status])).toEqual([["error", 500], ["error", 500]]);
    expect(body.trace.spans.filter((s) => s.name === "llm").map((s) => s.error_code)).toEqual(["upstream_error", "upstream_error"]);
  });

  test("an upstream 503 once: the retry answers, same model, fallbacks 0", async () => {
    upstream.script({ status: 503 });
    const res = await embed({ input: "x" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as EmbeddingsBody).gw.fallbacks).toBe(0);
    expect(upstream.callCount("/v1/embeddings")).toBe(2);
  });

  test("an upstream 429 -> 429 rate_limited at once, with Retry-After", async () => {
    upstream.script({ status: 429, headers: { "retry-after": "2" } });
    const res = await embed({ input: "x" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(upstream.callCount()).toBe(1);
  });
});
