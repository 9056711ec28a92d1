// POST /embeddings in test mode against a real listening gw: the official `openai` SDK (base64 by
// default, and float), validation, model resolution, scopes, deterministic 16-dimension vectors
// and the request log (docs/api.md "Embeddings", "Test mode", "Errors").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { APIError } from "openai";
import { ROUTING_PROFILES } from "../../src/config/constants.ts";
import { testVector } from "../../src/providers/sandbox/embeddings.ts";
import { type TestGw, get, post, startTestGw } from "../helpers/test-gw.ts";
import { requestDetail } from "../helpers/flow-helpers.ts";

let gw: TestGw;
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGw();
  client = new OpenAI({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
});
afterAll(() => gw.stop());

interface EmbeddingsBody {
  object: string;
  data: Array<{ object: string; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
  gw: { request_id: string; selected_model: string; provider: string; cost: number; saved: number; cache: null; fallbacks: number; test: boolean };
}
interface ErrorBody {
  error: { code: string; param: string | null; message: string; category: string; type: string };
}

const embed = (body: unknown, key: string | null = gw.testKey, headers: Record<string, string> = {}) => post(`${gw.url}/embeddings`, key, body, headers);

async function expectError(res: Response, status: number, code: string, param?: string | null): Promise<ErrorBody["error"]> {
  expect(res.status).toBe(status);
  const { error } = (await res.json()) as ErrorBody;
  expect(error.code).toBe(code);
  if (param !== undefined) expect(error.param).toBe(param);
  return error;
}

const norm = (v: number[]): number => Math.sqrt(v.reduce((n, x) => n + x * x, 0));

describe('the openai SDK (docs/api.md "Embeddings")', () => {
  test("create() asks for base64 by default and gets the sandbox's floats back, as float32", async () => {
    const { data, response } = await client.embeddings.create({ model: "text-embedding-3-small", input: "hello SDK" }).withResponse();
    expect(data.object).toBe("list");
    expect(data.model).toBe("openai/text-embedding-3-small");
    expect(data.data).toHaveLength(1);
    expect(data.data[0]!.object).toBe("embedding");
    expect(data.data[0]!.index).toBe(0);
    expect(data.data[0]!.embedding).toEqual(testVector("hello SDK").map(Math.fround));
    expect(data.usage.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage.total_tokens).toBe(data.usage.prompt_tokens);
    expect(response.headers.get("x-gw-model")).toBe("openai/text-embedding-3-small");
    expect(response.headers.get("x-gw-provider")).toBe("sandbox");
    expect(response.headers.get("x-gw-cache")).toBe("miss");
    expect(response.headers.get("x-gw-api-version")).toBe("2026-10-04");
    expect(response.headers.get("x-gw-request-id")).toMatch(/^req_/);
  });

  test("encoding_format float: plain numbers, exactly the sandbox's, several inputs in order", async () => {
    const input = ["one", "two", "three"];
    const out = await client.embeddings.create({ model: "openai/text-embedding-3-large", input, encoding_format: "float" });
    expect(out.model).toBe("openai/text-embedding-3-large");
    expect(out.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(out.data.map((d) => d.embedding)).toEqual(input.map((t) => testVector(t)));
  });

  test("gw-auto is not an embedding model: the SDK raises a 404 model_not_found", async () => {
    const err = await client.embeddings.create({ model: "gw-auto", input: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(404);
    expect((err as APIError).code).toBe("model_not_found");
  });
});

describe('the response (docs/api.md "Embeddings")', () => {
  test("base64 over HTTP: the float32 little-endian bytes of the vector", async () => {
    const res = await embed({ input: "bytes", encoding_format: "base64" });
    const body = (await res.json()) as EmbeddingsBody;
    const bytes = Buffer.from(body.data[0]!.embedding as string, "base64");
    expect(bytes.length).toBe(16 * 4);
    const floats = Array.from({ length: 16 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(floats).toEqual(testVector("bytes").map(Math.fround));
  });

  test("model omitted: the default embedding model; the gw object of 2.5", async () => {
    const res = await embed({ input: ["a text"] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as EmbeddingsBody;
    expect(body.model).toBe("openai/text-embedding-3-small");
    expect(body.gw).toEqual({
      request_id: res.headers.get("x-gw-request-id")!, selected_model: "openai/text-embedding-3-small", provider: "sandbox",
      cost: 0, saved: 0, cache: null, fallbacks: 0, test: true,
    });
  });

  test("test vectors: 16 dimensions, unit length, same text same vector, other text other vector", async () => {
    const res = await embed({ input: ["same", "same", "other"] });
    const [a, b, c] = ((await res.json()) as EmbeddingsBody).data.map((d) => d.embedding as number[]);
    expect(a).toHaveLength(16);
    expect(norm(a!)).toBeCloseTo(1, 12);
    expect(norm(c!)).toBeCloseTo(1, 12);
    expect(b).toEqual(a!);
    expect(c).not.toEqual(a!);
    const again = ((await (await embed({ input: "same" })).json()) as EmbeddingsBody).data[0]!.embedding;
    expect(again).toEqual(a!);
    // Every catalog embedding model gives the same test vector: it depends on the text only.
    const mistral = ((await (await embed({ input: "same", model: "mistral/mistral-embed" })).json()) as EmbeddingsBody);
    expect(mistral.data[0]!.embedding).toEqual(a!);
    expect(mistral.gw.cost).toBe(0);
  });

  test("dimensions with a test key: checked against the model, then ignored (always 16)", async () => {
    const ok = (await (await embed({ input: "d", model: "text-embedding-3-small", dimensions: 256 })).json()) as EmbeddingsBody;
    expect(ok.data[0]!.embedding).toHaveLength(16);
    await expectError(await embed({ input: "d", model: "mistral/mistral-embed", dimensions: 16 }), 400, "invalid_request", "dimensions");
    await expectError(await embed({ input: "d", model: "text-embedding-3-small", dimensions: 1537 }), 400, "invalid_request", "dimensions");
  });
});

describe('validation answers 400 invalid_request naming the param (docs/api.md "Errors")', () => {
  test("2048 inputs are fine, 2049 are not", async () => {
    const many = Array.from({ length: 2048 }, (_, i) => `text ${i}`);
    const res = await embed({ input: many });
    expect(res.status).toBe(200);
    const body = (await res.json()) as EmbeddingsBody;
    expect(body.data).toHaveLength(2048);
    expect(body.data[2047]!.index).toBe(2047);
    const error = await expectError(await embed({ input: [...many, "one more"] }), 400, "invalid_request", "input");
    expect(error.message).toContain("2048");
  });

  test.each([
    ["token array", { input: [1, 2, 3] }, "input"],
    ["array of token arrays", { input: [[1, 2], [3]] }, "input"],
  ])("%s: not supported", async (_name, body, param) => {
    const error = await expectError(await embed(body), 400, "invalid_request", param);
    expect(error.message).toContain("Token arrays are not supported");
  });

  test.each([
    ["missing input", { model: "text-embedding-3-small" }, "input"],
    ["empty string", { input: "" }, "input"],
    ["empty string in a list", { input: ["a", ""] }, "input[1]"],
    ["empty list", { input: [] }, "input"],
    ["input of another type", { input: { text: "a" } }, "input"],
    ["mixed list", { input: ["a", 3] }, "input[1]"],
    ["dimensions 0", { input: "a", dimensions: 0 }, "dimensions"],
    ["dimensions not an integer", { input: "a", dimensions: 1.5 }, "dimensions"],
    ["unknown encoding_format", { input: "a", encoding_format: "int8" }, "encoding_format"],
    ["user not a string", { input: "a", user: 7 }, "user"],
  ])("%s", async (_name, body, param) => {
    await expectError(await embed(body), 400, "invalid_request", param);
  });

  test("unknown fields are accepted", async () => {
    expect((await embed({ input: "a", user: "u-1", extra_field: { anything: true } })).status).toBe(200);
  });
});

describe('models (docs/api.md "Embeddings")', () => {
  test.each([
    ["a chat model", "openai/gpt-4o-mini", "not an embedding model"],
    ["a bare chat model id", "gpt-4o-mini", "not an embedding model"],
    ["an unknown model", "openai/nonesuch-embed", "does not exist"],
  ])("%s -> 404 model_not_found", async (_name, model, text) => {
    const error = await expectError(await embed({ input: "a", model }), 404, "model_not_found", "model");
    expect(error.message).toContain(text);
  });

  test("every routing profile -> 404 model_not_found", async () => {
    for (const profile of ROUTING_PROFILES) await expectError(await embed({ input: "a", model: profile }), 404, "model_not_found");
  });

  test("a bare embedding id resolves to its catalog entry", async () => {
    const body = (await (await embed({ input: "a", model: "gemini-embedding-001" })).json()) as EmbeddingsBody;
    expect(body.model).toBe("google/gemini-embedding-001");
  });
});

describe('scopes (docs/api.md "Authentication")', () => {
  test("a key without the embeddings scope -> 403 permission_denied", async () => {
    await expectError(await embed({ input: "a" }, gw.key({ scopes: ["chat", "models"] })), 403, "permission_denied");
  });

  test("no key -> 401 invalid_api_key", async () => {
    await expectError(await embed({ input: "a" }, null), 401, "invalid_api_key");
  });
});

describe('test-mode errors on demand (docs/api.md "Test mode")', () => {
  test("gw-test:rate_limited answers 429 through the provider path, one attempt", async () => {
    const res = await embed({ input: "a", model: "gw-test:rate_limited" });
    await expectError(res, 429, "rate_limited");
    await gw.drain();
    const { body } = await requestDetail(gw.url, gw.testKey, res.headers.get("x-gw-request-id")!);
    expect(body.trace.attempts).toHaveLength(1);
  });

  test("gw-test:insufficient_credits answers 402 before any call", async () => {
    await expectError(await embed({ input: "a", model: "gw-test:insufficient_credits" }), 402, "insufficient_credits");
  });

  test("gw-test:fallback: the first attempt fails, the retry of the same model answers (no other model)", async () => {
    const res = await embed({ input: "a", model: "gw-test:fallback" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as EmbeddingsBody;
    expect(body.gw.fallbacks).toBe(0);
    await gw.drain();
    const { body: detail } = await requestDetail(gw.url, gw.testKey, body.gw.request_id);
    expect(detail.trace.attempts.map((a) => [a.model, a.status])).toEqual([
      ["openai/text-embedding-3-small", "error"], ["openai/text-embedding-3-small", "ok"],
    ]);
  });

  test("an unknown scenario -> 404 model_not_found", async () => {
    await expectError(await embed({ input: "a", model: "gw-test:nonesuch" }), 404, "model_not_found");
  });
});

describe('Idempotency-Key (docs/idempotency.md)', () => {
  test("the same request replays the stored answer; another body under the key -> 422", async () => {
    const headers = { "idempotency-key": "embed-idem-1" };
    const first = await embed({ input: "once" }, gw.testKey, headers);
    const again = await embed({ input: "once" }, gw.testKey, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    await expectError(await embed({ input: "twice" }, gw.testKey, headers), 422, "idempotency_mismatch");
  });
});

describe('the request log (docs/api.md "Request log")', () => {
  test("the row names the endpoint and model, costs 0; the trace has spans but no text or vector", async () => {
    const secret = "the confidential sentence 7f3a";
    const res = await embed({ input: [secret, "second"], model: "text-embedding-3-small" }, gw.testKey, { "x-gw-trace-id": "trace-embed-1" });
    const id = res.headers.get("x-gw-request-id")!;
    await gw.drain();
    const list = (await (await get(`${gw.url}/requests?trace_id=trace-embed-1`, gw.testKey)).json()) as { data: Array<Record<string, unknown>> };
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      request_id: id, endpoint: "embeddings", requested_model: "text-embedding-3-small",
      selected_model: "openai/text-embedding-3-small", provider: "sandbox", cost: 0, saved: 0, status: 200,
      output_tokens: 0, task: null, test: true,
    });
    expect(list.data[0]!.input_tokens as number).toBeGreaterThan(0);
    const { status, body } = await requestDetail(gw.url, gw.testKey, id);
    expect(status).toBe(200);
    expect(body.trace.spans.map((s) => s.name)).toEqual(["request", "authentication", "parse", "guard", "routing", "llm"]);
    const raw = JSON.stringify(body);
    expect(raw).not.toContain("confidential");
    expect(raw).not.toContain(String(testVector(secret)[0]));
  });

  test("a validation error is logged with its status and code", async () => {
    const res = await embed({ input: [], model: "text-embedding-3-small" });
    await gw.drain();
    const { body } = await requestDetail(gw.url, gw.testKey, res.headers.get("x-gw-request-id")!);
    expect(body.status).toBe(400);
    expect(body.error?.code).toBe("invalid_request");
    expect(body.error_category).toBe("VALIDATION_FAILED");
    expect(body.trace.spans.find((s) => s.name === "parse")?.error_code).toBe("invalid_request");
  });
});
