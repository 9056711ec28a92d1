// Malformed POST /chat/completions bodies and headers (docs/api.md "Errors", "Limits"):
// each answers 4xx in the error envelope, naming the param at fault, never 5xx and never a hang.
// OpenAI fields gw does not use are accepted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { chat, expectError, json, requestDetail, user, type Json } from "./chat-helpers.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

const msgs = user("hello");
const TOOL = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } };

interface Case {
  name: string;
  /** A JSON-able body, or a raw string sent as is. */
  body: unknown;
  /** The param the error must name (or a pattern it must match); null: none; absent: not checked. */
  param?: string | RegExp | null;
  headers?: Record<string, string>;
}

const CASES: Case[] = [
  { name: "invalid JSON", body: '{"messages": [', param: null },
  { name: "empty body", body: "", param: null },
  { name: "whitespace body", body: "   \n ", param: null },
  { name: "JSON array", body: "[1,2]", param: null },
  { name: "JSON string", body: '"hello"', param: null },
  { name: "JSON null", body: "null", param: null },
  { name: "deeply nested JSON", body: `{"messages":${"[".repeat(100_000)}${"]".repeat(100_000)}}`, param: /^messages/ },
  { name: "missing messages", body: { model: "gw-auto" }, param: "messages" },
  { name: "messages not an array", body: { messages: "hi" }, param: "messages" },
  { name: "messages empty", body: { messages: [] }, param: "messages" },
  { name: "message not an object", body: { messages: ["hi"] }, param: "messages[0]" },
  { name: "message null", body: { messages: [null] }, param: "messages[0]" },
  { name: "bad role", body: { messages: [{ role: "wizard", content: "hi" }] }, param: "messages[0].role" },
  { name: "role missing", body: { messages: [{ content: "hi" }] }, param: "messages[0].role" },
  { name: "content a number", body: { messages: [{ role: "user", content: 42 }] }, param: "messages[0].content" },
  {
    name: "content part of unknown type",
    body: { messages: [{ role: "user", content: [{ type: "audio", data: "x" }] }] },
    param: /^messages\[0\]\.content/,
  },
  {
    name: "image part without url",
    body: { messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] },
    param: /^messages\[0\]\.content/,
  },
  {
    name: "image part in a system message",
    body: { messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }, ...msgs] },
    param: "messages[0].content",
  },
  {
    name: "tool message without tool_call_id",
    body: { messages: [...msgs, { role: "tool", content: "42" }] },
    param: "messages[1].tool_call_id",
  },
  {
    name: "assistant without content or tool_calls",
    body: { messages: [...msgs, { role: "assistant" }, ...msgs] },
    param: "messages[1].content",
  },
  { name: "user without content", body: { messages: [{ role: "user" }] }, param: "messages[0].content" },
  { name: "user with null content", body: { messages: [{ role: "user", content: null }] }, param: "messages[0].content" },
  { name: "model a number", body: { model: 4, messages: msgs }, param: "model" },
  { name: "model empty string", body: { model: "", messages: msgs }, param: "model" },
  { name: "temperature 3", body: { messages: msgs, temperature: 3 }, param: "temperature" },
  { name: "temperature negative", body: { messages: msgs, temperature: -0.1 }, param: "temperature" },
  { name: "temperature a string", body: { messages: msgs, temperature: "hot" }, param: "temperature" },
  { name: "top_p 2", body: { messages: msgs, top_p: 2 }, param: "top_p" },
  { name: "max_tokens 0", body: { messages: msgs, max_tokens: 0 }, param: "max_tokens" },
  { name: "max_tokens 1.5", body: { messages: msgs, max_tokens: 1.5 }, param: "max_tokens" },
  { name: "max_tokens a string", body: { messages: msgs, max_tokens: "10" }, param: "max_tokens" },
  { name: "n 0", body: { messages: msgs, n: 0 }, param: "n" },
  { name: "stream \"yes\"", body: { messages: msgs, stream: "yes" }, param: "stream" },
  { name: "stop array of 5", body: { messages: msgs, stop: ["a", "b", "c", "d", "e"] }, param: "stop" },
  { name: "tools not an array", body: { messages: msgs, tools: TOOL }, param: "tools" },
  {
    name: "tool without function name",
    body: { messages: msgs, tools: [{ type: "function", function: { parameters: {} } }] },
    param: "tools[0].function.name",
  },
  {
    name: "tool name with spaces",
    body: { messages: msgs, tools: [{ type: "function", function: { name: "get weather" } }] },
    param: "tools[0].function.name",
  },
  { name: "tool of unknown type", body: { messages: msgs, tools: [{ type: "retrieval" }] }, param: /^tools\[0\]/ },
  { name: "duplicate tool names", body: { messages: msgs, tools: [TOOL, TOOL] }, param: "tools[1].function.name" },
  {
    name: "tool_choice naming a missing tool",
    body: { messages: msgs, tools: [TOOL], tool_choice: { type: "function", function: { name: "nope" } } },
    param: "tool_choice",
  },
  { name: "tool_choice without tools", body: { messages: msgs, tool_choice: "required" }, param: "tool_choice" },
  { name: "tool_choice unknown string", body: { messages: msgs, tools: [TOOL], tool_choice: "sometimes" }, param: "tool_choice" },
  { name: "response_format of unknown type", body: { messages: msgs, response_format: { type: "yaml" } }, param: "response_format" },
  {
    name: "json_schema without name",
    body: { messages: msgs, response_format: { type: "json_schema", json_schema: { schema: { type: "object" } } } },
    param: "response_format",
  },
  // The sandbox cannot sample these schemas; a real provider rejects them with a 400 as well.
  {
    name: "json_schema with an unresolvable $ref",
    body: { messages: msgs, response_format: { type: "json_schema", json_schema: { name: "x", schema: { $ref: "#/$defs/missing" } } } },
  },
  {
    name: "json_schema that no value satisfies",
    body: {
      messages: msgs,
      response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object", properties: { a: false }, required: ["a"] } } },
    },
  },
  {
    name: "tool parameters with an unresolvable $ref",
    body: {
      messages: msgs, tool_choice: "required",
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { $ref: "#/nope" } }, required: ["a"] } } }],
    },
  },
  { name: "21 tags", body: { messages: msgs, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, param: "tags" },
  { name: "tags not strings", body: { messages: msgs, tags: [1, 2] }, param: "tags[0]" },
  { name: "metadata.priority bad", body: { messages: msgs, metadata: { priority: "urgent" } }, param: "metadata.priority" },
  { name: "routing.mode bad", body: { messages: msgs, routing: { mode: "cheapest" } }, param: "routing.mode" },
  { name: "max_cost negative", body: { messages: msgs, max_cost: -1 }, param: "max_cost" },
  { name: "max_cost a string", body: { messages: msgs, max_cost: "1" }, param: "max_cost" },
  { name: "cache.mode bad", body: { messages: msgs, cache: { mode: "forever" } }, param: "cache.mode" },
  { name: "X-Gw-Trace-Id of 41 characters", body: { messages: msgs }, param: "X-Gw-Trace-Id", headers: { "x-gw-trace-id": "t".repeat(41) } },
  {
    name: "X-Gw-Parent-Span of 25 characters",
    body: { messages: msgs },
    param: "X-Gw-Parent-Span",
    headers: { "x-gw-parent-span": "s".repeat(25) },
  },
];

describe('malformed chat bodies answer 400 invalid_request (docs/api.md "Errors")', () => {
  test("the table has at least 30 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  for (const c of CASES) {
    test(`${c.name} -> 400${c.param ? ` param ${c.param}` : ""}`, async () => {
      const res = await chat(gw, c.body, c.headers ?? {});
      const err = await expectError(res, 400, "invalid_request", {
        type: "invalid_request_error", category: "VALIDATION_FAILED",
        ...(c.param instanceof RegExp || c.param === undefined ? {} : { param: c.param }),
      });
      if (c.param instanceof RegExp) expect(err.param).toMatch(c.param);
    });
  }

  test("a rejected body is logged as a 400 with category VALIDATION_FAILED", async () => {
    const res = await chat(gw, { model: "gw-fast", messages: msgs, temperature: 3 });
    const err = await expectError(res, 400, "invalid_request");
    const detail = await requestDetail(gw, err.request_id as string);
    expect(detail.status).toBe(400);
    expect((detail.error as Json).code).toBe("invalid_request");
    expect(detail.error_category).toBe("VALIDATION_FAILED");
    expect(detail.requested_model).toBe("gw-fast");
  });
});

describe(`a schema the sandbox cannot satisfy is the caller's error (docs/api.md "Errors")`, () => {
  test("it is one attempt (no fallback) logged as a 400, not an upstream failure", async () => {
    for (const stream of [false, true]) {
      const res = await chat(gw, {
        model: "gw-auto", messages: msgs, stream,
        response_format: { type: "json_schema", json_schema: { name: "x", schema: { $ref: "#/$defs/missing" } } },
      });
      const err = await expectError(res, 400, "invalid_request", { category: "VALIDATION_FAILED" });
      const detail = await requestDetail(gw, err.request_id as string);
      expect(detail.status).toBe(400);
      expect(detail.error_category).toBe("VALIDATION_FAILED");
      expect((detail.trace as { attempts: unknown[] }).attempts).toHaveLength(1);
    }
  });
});

describe('limits (docs/api.md "Limits")', () => {
  test("exactly 20 tags, a 40-character trace id and a 24-character parent span are accepted", async () => {
    const res = await chat(gw, { messages: msgs, tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }, {
      "x-gw-trace-id": "t".repeat(40), "x-gw-parent-span": "s".repeat(24),
    });
    expect(res.status).toBe(200);
  });

  test("a body over 10 MiB answers 413 with code invalid_request", async () => {
    const big = JSON.stringify({ messages: user("x".repeat(10 * 1024 * 1024 + 16)) });
    await expectError(await chat(gw, big), 413, "invalid_request", { type: "invalid_request_error", category: "VALIDATION_FAILED" });
  });

  test("a body just under 10 MiB is not rejected for its size", async () => {
    // The bulk sits in an unknown field, so no model's context window is at stake.
    const body = JSON.stringify({ messages: msgs, padding: "x".repeat(10 * 1024 * 1024 - 100) });
    expect(body.length).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(body.length).toBeGreaterThan(10 * 1024 * 1024 - 200);
    expect((await chat(gw, body)).status).toBe(200);
  });
});

describe('unknown and unused OpenAI fields are accepted (docs/api.md "Chat completions")', () => {
  test("seed, n 1, logprobs false, stream_options, user, parallel_tool_calls and an unknown field -> 200", async () => {
    const res = await chat(gw, {
      model: "gw-auto",
      messages: [{ role: "system", content: "Be brief." }, { role: "developer", content: "Really." }, ...msgs],
      seed: 7,
      n: 1,
      logprobs: false,
      stream_options: { include_usage: true },
      user: "end-user-1",
      parallel_tool_calls: true,
      presence_penalty: 0,
      frequency_penalty: 0,
      something_new: { nested: true },
      temperature: null,
      max_tokens: null,
    });
    expect(res.status).toBe(200);
    expect((await json(res)).object).toBe("chat.completion");
  });

  test("content parts (text and image_url as string or object) and an assistant tool call turn are accepted", async () => {
    const res = await chat(gw, {
      messages: [
        { role: "user", content: [{ type: "text", text: "Look:" }, { type: "image_url", image_url: "https://example.com/a.png" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
        { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/b.png", detail: "low" } }] },
      ],
      tools: [TOOL],
    });
    expect(res.status).toBe(200);
  });
});
