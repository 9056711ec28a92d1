// The official `openai` SDK against a real listening gw in test mode: completions, streams and
// their helpers, structured output, the models list and the SDK's error classes
// (docs/api.md "Chat completions", "Models", "Test mode", "Errors").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { APIError } from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { ROUTING_PROFILES } from "../../../src/config/constants.ts";
import { type TestGw, startTestGw } from "../../helpers/test-gw.ts";
import { weatherTool } from "../../fixtures/tools.ts";

let gw: TestGw;
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGw();
  client = new OpenAI({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
});
afterAll(() => gw.stop());

const user = (content: string) => [{ role: "user" as const, content }];

interface GwInfo {
  request_id: string;
  selected_model: string;
  provider: string;
  cost: number;
  saved: number;
  cache: string | null;
  fallbacks: number;
  test: boolean;
}

const gwOf = (value: object): GwInfo => (value as { gw: GwInfo }).gw;


/** Runs `fn` and returns what it threw (failing the test when it does not throw). */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to throw");
}

describe('non-streaming chat completions through the SDK (docs/api.md "Chat completions")', () => {
  test("create answers a chat.completion with the gw object and the request id header", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: "gw-auto", messages: user("Say hello to the SDK") })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.id).toStartWith("chatcmpl-");
    expect(typeof data.created).toBe("number");
    expect(gw.deps.catalog.get(data.model)).toBeDefined();
    expect(data.choices[0]?.message.role).toBe("assistant");
    expect(data.choices[0]?.message.content?.length ?? 0).toBeGreaterThan(0);
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.usage?.total_tokens).toBe((data.usage?.prompt_tokens ?? -1) + (data.usage?.completion_tokens ?? -1));

    const info = gwOf(data);
    expect(info.request_id).toMatch(/^req_/);
    expect(info.provider).toBe("sandbox");
    expect(info.test).toBe(true);
    expect(info.fallbacks).toBe(0);
    expect(info.cache).toBeNull();
    expect(info.selected_model).toBe(data.model);
    expect(response.headers.get("x-gw-request-id")).toBe(info.request_id);
    expect(response.headers.get("x-gw-provider")).toBe("sandbox");
    expect(response.headers.get("x-gw-model")).toBe(data.model);
    expect(response.headers.get("x-gw-api-version")).toBe("2026-10-04");
  });
});

describe('streams the SDK accepts (docs/api.md "Chat completions")', () => {
  test("for await over a stream: content concatenates and the gw.summary chunk does not break the SDK", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: "gw-auto", messages: user("Stream a short answer"), stream: true })
      .withResponse();
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const summaries = chunks.filter((c) => (c.object as string) === "gw.summary");
    expect(summaries).toHaveLength(1);
    const summary = summaries[0]!;
    expect(chunks.at(-1)).toBe(summary);
    expect(summary.choices).toEqual([]);

    const regular = chunks.filter((c) => c.object === "chat.completion.chunk");
    expect(regular.length).toBeGreaterThan(2);
    const text = regular.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text.length).toBeGreaterThan(0);
    // The summary belongs to the same stream (docs/api.md "Chat completions").
    for (const c of chunks) expect(c.id).toBe(regular[0]!.id);
    const usageChunk = regular.find((c) => c.usage);
    expect(usageChunk?.usage?.completion_tokens ?? 0).toBeGreaterThan(0);

    const info = gwOf(summary);
    expect(info.request_id).toBe(response.headers.get("x-gw-request-id")!);
    expect(info.test).toBe(true);
    expect(info.provider).toBe("sandbox");
    expect(summary.model).toBe(info.selected_model);

    // The streamed text is the non-streamed answer of the same request (deterministic test mode).
    const whole = await client.chat.completions.create({ model: "gw-auto", messages: user("Stream a short answer") });
    expect(text).toBe(whole.choices[0]?.message.content ?? "");
  });

  test("chat.completions.stream helper: finalChatCompletion has the content and usage", async () => {
    const runner = client.chat.completions.stream({
      model: "gw-auto",
      messages: user("Use the stream helper"),
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    runner.on("content", (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    const content = final.choices[0]?.message.content ?? "";
    expect(content.length).toBeGreaterThan(0);
    expect(deltas.join("")).toBe(content);
    expect(final.choices[0]?.finish_reason).toBe("stop");
    expect(final.usage?.completion_tokens ?? 0).toBeGreaterThan(0);
    expect(final.usage?.total_tokens).toBe((final.usage?.prompt_tokens ?? -1) + (final.usage?.completion_tokens ?? -1));
  });

  test("stream helper with tools: finalChatCompletion carries a tool call with parseable arguments", async () => {
    const runner = client.chat.completions.stream({
      model: "gw-auto",
      messages: user("What is the get_weather for Paris over the next 3 days?"),
      tools: [weatherTool],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe("function");
    if (call?.type !== "function") throw new Error("expected a function tool call");
    expect(call.id.length).toBeGreaterThan(0);
    expect(call.function.name).toBe("get_weather");
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    expect(typeof args.city).toBe("string");
    expect(Number.isInteger(args.days)).toBe(true);
    expect(Object.keys(args).sort()).toEqual(["city", "days"]);
  });

  test("gw-test:stream_error: the SDK throws an APIError during iteration after some content", async () => {
    const stream = await client.chat.completions.create({
      model: "gw-test:stream_error",
      messages: user("Break the stream please"),
      stream: true,
    });
    let content = "";
    let chunks = 0;
    const err = await thrown(async () => {
      for await (const chunk of stream) {
        chunks++;
        content += chunk.choices[0]?.delta.content ?? "";
      }
    });
    expect(chunks).toBeGreaterThan(0);
    expect(content.length).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(APIError);
    const apiErr = err as APIError;
    expect(apiErr.code).toBe("upstream_error");
    expect((apiErr.error as { request_id?: string }).request_id).toMatch(/^req_/);
  });
});

describe('structured output through chat.completions.parse (docs/api.md "Test mode")', () => {
  test("a plain json_schema response_format yields JSON that matches the schema", async () => {
    const schema = {
      type: "object",
      properties: {
        title: { type: "string" },
        year: { type: "integer" },
        genres: { type: "array", items: { type: "string" } },
      },
      required: ["title", "year", "genres"],
      additionalProperties: false,
    };
    const res = await client.chat.completions.parse({
      model: "gw-auto",
      messages: user("Describe a film as JSON"),
      response_format: { type: "json_schema", json_schema: { name: "film", schema, strict: true } },
    });
    const message = res.choices[0]?.message;
    const content = message?.content ?? "";
    const parsed = JSON.parse(content) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(["genres", "title", "year"]);
    expect(typeof parsed.title).toBe("string");
    expect(Number.isInteger(parsed.year)).toBe(true);
    expect(Array.isArray(parsed.genres)).toBe(true);
    for (const g of parsed.genres as unknown[]) expect(typeof g).toBe("string");
    // The SDK parses raw json_schema formats itself as well.
    expect(message?.parsed as unknown).toEqual(parsed);
  });
});

describe('models.list through the SDK (docs/api.md "Models")', () => {
  test("iterates every entry: the routing profiles and real <provider>/<model> ids", async () => {
    const ids: string[] = [];
    const entries: Array<Record<string, unknown>> = [];
    for await (const m of client.models.list()) {
      ids.push(m.id);
      entries.push(m as unknown as Record<string, unknown>);
      expect(m.object).toBe("model");
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(ROUTING_PROFILES.length + gw.deps.catalog.models.length);
    for (const profile of ROUTING_PROFILES) {
      const entry = entries.find((e) => e.id === profile);
      expect(entry?.gw).toEqual({ virtual: true });
      expect(entry?.created).toBe(0);
    }
    const real = entries.filter((e) => !(e.gw as { virtual?: boolean }).virtual);
    expect(real.length).toBe(gw.deps.catalog.models.length);
    for (const e of real) {
      expect(e.id as string).toMatch(/^[a-z0-9-]+\/.+$/);
      const info = e.gw as Record<string, unknown>;
      expect(typeof info.input_price).toBe("number");
      expect(typeof info.output_price).toBe("number");
      // Test keys may route to every model (docs/api.md "Models").
      expect(info.routable).toBe(true);
    }
    expect(ids).toContain("openai/gpt-4o-mini");
  });
});

describe(`errors surface as the SDK's error classes (docs/api.md "Errors")`, () => {
  const create = (c: OpenAI, model: string) => c.chat.completions.create({ model, messages: user("Trigger an error") });

  test("a bad key is an AuthenticationError (401 invalid_api_key)", async () => {
    const bad = new OpenAI({ apiKey: "gw_test_not-a-real-key", baseURL: gw.url, maxRetries: 0 });
    const err = await thrown(() => create(bad, "gw-auto"));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as APIError).status).toBe(401);
    expect((err as APIError).code).toBe("invalid_api_key");
    expect((err as APIError).type).toBe("authentication_error");
  });

  test("a key without the chat scope is a PermissionDeniedError (403 permission_denied)", async () => {
    const noChat = new OpenAI({ apiKey: gw.key({ scopes: ["models"] }), baseURL: gw.url, maxRetries: 0 });
    const err = await thrown(() => create(noChat, "gw-auto"));
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((err as APIError).status).toBe(403);
    expect((err as APIError).code).toBe("permission_denied");
    // The same key may still list models.
    const page = await noChat.models.list();
    expect(page.data.length).toBeGreaterThan(0);
  });

  test("an unknown model is a NotFoundError (404 model_not_found)", async () => {
    const err = await thrown(() => create(client, "nobody/no-such-model"));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as APIError).status).toBe(404);
    expect((err as APIError).code).toBe("model_not_found");
    expect((err as APIError).param).toBe("model");
  });

  const cases = [
    { model: "gw-test:rate_limited", cls: OpenAI.RateLimitError, status: 429, code: "rate_limited", category: "RATE_LIMIT" },
    { model: "gw-test:invalid_request", cls: OpenAI.BadRequestError, status: 400, code: "invalid_request", category: "VALIDATION_FAILED" },
    { model: "gw-test:upstream_error", cls: OpenAI.InternalServerError, status: 502, code: "upstream_error", category: "UPSTREAM_ERROR" },
  ] as const;
  for (const c of cases) {
    test(`${c.model} is a ${c.cls.name} (${c.status} ${c.code})`, async () => {
      const err = await thrown(() => create(client, c.model));
      expect(err).toBeInstanceOf(c.cls);
      const apiErr = err as APIError;
      expect(apiErr.status).toBe(c.status);
      expect(apiErr.code).toBe(c.code);
      const body = apiErr.error as Record<string, unknown>;
      expect(body.code).toBe(c.code);
      expect(body.category).toBe(c.category);
      expect(body.request_id as string).toMatch(/^req_/);
      expect(apiErr.headers?.get("x-gw-request-id")).toBe(body.request_id as string);
    });
  }

  test("rate_limited carries Retry-After", async () => {
    const err = (await thrown(() => create(client, "gw-test:rate_limited"))) as APIError;
    expect(Number(err.headers?.get("retry-after"))).toBeGreaterThanOrEqual(0);
  });

  test("the failed requests are logged with their codes", async () => {
    await gw.drain();
    const res = await fetch(`${gw.url}/requests?limit=100`, { headers: { authorization: `Bearer ${gw.testKey}` } });
    const list = (await res.json()) as { data: Array<{ requested_model: string; status: number; error: { code: string } | null }> };
    for (const c of cases) {
      const row = list.data.find((r) => r.requested_model === c.model);
      expect(row?.status).toBe(c.status);
      expect(row?.error?.code).toBe(c.code);
    }
  });
});
