// Every typed error reached through a real gw: the `gw-test:<name>` scenarios, and the errors gw
// answers on its own (bad key, missing scope, unknown id or model, 422 bodies, idempotency).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  BlockedByPolicyError, BudgetExceededError, ConnectionTimeoutError, Gw, GwError, IdempotencyMismatchError,
  InsufficientCreditsError, InvalidApiKeyError, InvalidRequestError, ModelNotFoundError, NoModelAvailableError, NotFoundError,
  PermissionDeniedError, PlanLimitError, ProviderUnavailableError, RateLimitedError, TimeoutError, UpstreamError, ValidationError,
} from "../dist/index.js";
import { type TestGw, startTestGw } from "../../../test/helpers/test-gw.ts";

let gw: TestGw;
let sdk: Gw;

beforeAll(async () => {
  gw = await startTestGw();
  sdk = new Gw({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
});
afterAll(() => gw.stop());

const messages = [{ role: "user" as const, content: "Hello" }];

async function caught(promise: PromiseLike<unknown>): Promise<GwError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GwError) return err;
    throw err;
  }
  throw new Error("expected an error");
}

const SCENARIOS: Array<[string, typeof GwError, number, string]> = [
  ["invalid_request", InvalidRequestError, 400, "invalid_request_error"],
  ["blocked_by_policy", BlockedByPolicyError, 400, "invalid_request_error"],
  ["budget_exceeded", BudgetExceededError, 402, "billing_error"],
  ["insufficient_credits", InsufficientCreditsError, 402, "billing_error"],
  ["plan_limit", PlanLimitError, 402, "billing_error"],
  ["rate_limited", RateLimitedError, 429, "rate_limit_error"],
  ["upstream_error", UpstreamError, 502, "api_error"],
  ["no_model_available", NoModelAvailableError, 503, "api_error"],
  ["provider_unavailable", ProviderUnavailableError, 503, "api_error"],
  ["timeout", TimeoutError, 504, "timeout_error"],
];

describe("errors from gw-test:<name>", () => {
  for (const [name, Class, status, type] of SCENARIOS) {
    test(`${name} raises ${Class.name} with status, code, type, category, requestId`, async () => {
      const err = await caught(sdk.chat.completions.create({ model: `gw-test:${name}`, messages }));
      expect(err).toBeInstanceOf(Class);
      expect(err.name).toBe(Class.name);
      expect(err.status).toBe(status);
      expect(err.code).toBe(name);
      expect(err.type).toBe(type);
      expect(err.category).toEqual(expect.any(String));
      expect(err.requestId).toMatch(/^req_/);
      expect(err.message.length).toBeGreaterThan(0);
    });
  }

  test("an unknown gw-test name raises ModelNotFoundError", async () => {
    const err = await caught(sdk.chat.completions.create({ model: "gw-test:no_such_thing", messages }));
    expect(err).toBeInstanceOf(ModelNotFoundError);
    expect(err.status).toBe(404);
  });

  test("the same scenario on responses and embeddings raises the same class", async () => {
    expect(await caught(sdk.responses.create({ model: "gw-test:rate_limited", input: "Hi" }))).toBeInstanceOf(RateLimitedError);
    expect(await caught(sdk.embeddings.create({ model: "no-such/embedder", input: "Hi" }))).toBeInstanceOf(ModelNotFoundError);
  });

  test("an error inside a chat stream is thrown from the loop, typed, after some chunks", async () => {
    const stream = await sdk.chat.completions.create({ model: "gw-test:stream_error", messages, stream: true });
    let chunks = 0;
    const err = await caught((async () => {
      for await (const _ of stream) chunks++;
    })());
    expect(chunks).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.code).toBe("upstream_error");
    expect(err.status).toBeUndefined();
    expect(err.requestId).toBe(stream.requestId ?? "");
  });

  test("an error inside a responses stream is thrown from the loop, typed", async () => {
    const stream = await sdk.responses.create({ model: "gw-test:stream_error", input: "Hi", stream: true });
    const types: string[] = [];
    const err = await caught((async () => {
      for await (const event of stream) types.push(event.type);
    })());
    expect(types).toContain("response.output_text.delta");
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.requestId).toBe(stream.requestId ?? "");
  });
});

describe("errors gw answers on its own", () => {
  test("a wrong key raises InvalidApiKeyError (401)", async () => {
    const err = await caught(new Gw({ apiKey: "gw_test_nope", baseURL: gw.url }).models.list());
    expect(err).toBeInstanceOf(InvalidApiKeyError);
    expect(err.status).toBe(401);
    expect(err.code).toBe("invalid_api_key");
  });

  test("a key without the requests scope raises PermissionDeniedError", async () => {
    const err = await caught(new Gw({ apiKey: gw.key(), baseURL: gw.url }).requests.list());
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err.status).toBe(403);
  });

  test("an unknown request id raises NotFoundError", async () => {
    const err = await caught(sdk.requests.get("req_doesnotexist"));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.status).toBe(404);
  });

  test("an out-of-range param raises InvalidRequestError naming it", async () => {
    const err = await caught(sdk.requests.list({ limit: 500 }));
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(err.param).toBe("limit");
  });

  test("a 422 {message, errors} body raises ValidationError with its errors", async () => {
    const completion = await sdk.chat.completions.create({ messages });
    await gw.drain();
    const err = await caught(sdk.requests.feedback(completion.gw.request_id, { rating: 9 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.status).toBe(422);
    expect(Object.keys((err as ValidationError).errors)).toContain("rating");
    const invalid = await caught(sdk.cache.invalidate({ tags: [] }));
    expect(invalid).toBeInstanceOf(ValidationError);
  });

  test("the same Idempotency-Key with another body raises IdempotencyMismatchError", async () => {
    const idempotencyKey = `node-${crypto.randomUUID()}`;
    await sdk.chat.completions.create({ messages }, { idempotencyKey });
    const err = await caught(sdk.chat.completions.create({ messages: [{ role: "user", content: "Other" }] }, { idempotencyKey }));
    expect(err).toBeInstanceOf(IdempotencyMismatchError);
    expect(err.status).toBe(422);
  });

  test("the client's own timeout raises ConnectionTimeoutError", async () => {
    const slow = Bun.serve({ port: 0, fetch: () => new Promise<Response>(() => undefined) });
    try {
      const err = await caught(new Gw({ apiKey: "k", baseURL: `http://127.0.0.1:${slow.port}/v1`, timeout: 200, maxRetries: 0 }).models.list());
      expect(err).toBeInstanceOf(ConnectionTimeoutError);
    } finally {
      await slow.stop(true);
    }
  });
});
