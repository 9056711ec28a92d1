// Proves the scripted upstream speaks OpenAI's wire format: the official `openai` SDK, pointed at
// it, must accept every reply (whole, streamed, helpers, embeddings, models and errors).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { APIError } from "openai";
import { type ScriptedUpstream, startScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { weatherTool } from "../fixtures/tools.ts";
import { waitFor } from "../helpers/wait-for.ts";

let upstream: ScriptedUpstream;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  client = new OpenAI({ apiKey: "sk-test", baseURL: upstream.url, maxRetries: 0 });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

const user = (content: string) => [{ role: "user" as const, content }];

describe("chat completions", () => {
  test("non-streaming create", async () => {
    const res = await client.chat.completions.create({ model: "gpt-4o-mini", messages: user("Hello there, how are you?") });
    expect(res.object).toBe("chat.completion");
    expect(res.id).toStartWith("chatcmpl-");
    expect(res.model).toBe("gpt-4o-mini");
    expect(typeof res.created).toBe("number");
    expect(res.system_fingerprint).toStartWith("fp_");
    const choice = res.choices[0];
    expect(choice?.message).toMatchObject({ role: "assistant", content: "Echo: Hello there, how are you?", refusal: null });
    expect(choice?.finish_reason).toBe("stop");
    expect(choice?.logprobs).toBeNull();
    expect(res.usage?.total_tokens).toBe((res.usage?.prompt_tokens ?? 0) + (res.usage?.completion_tokens ?? 0));
    expect(res.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(res.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
  });

  test("default content is the first 40 chars of the last user message; options.content overrides", async () => {
    const long = "x".repeat(100);
    const res = await client.chat.completions.create({
      model: "m",
      messages: [...user("first"), { role: "assistant", content: "ok" }, ...user(long)],
    });
    expect(res.choices[0]?.message.content).toBe(`Echo: ${"x".repeat(40)}`);

    const other = await startScriptedUpstream({ content: (body) => `model=${String(body.model)}` });
    const c2 = new OpenAI({ apiKey: "k", baseURL: other.url, maxRetries: 0 });
    const r2 = await c2.chat.completions.create({ model: "abc", messages: user("hi") });
    expect(r2.choices[0]?.message.content).toBe("model=abc");
    await other.stop();
  });

  test("streaming with for-await accumulates deltas and the final usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: user("stream me some words please"),
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let role: string | undefined;
    let finish: string | null = null;
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      chunks++;
      expect(chunk.object).toBe("chat.completion.chunk");
      const c = chunk.choices[0];
      if (c === undefined) {
        expect(chunk.choices).toEqual([]);
        usage = chunk.usage;
        continue;
      }
      expect(chunk.usage).toBeNull();
      role ??= c.delta.role;
      text += c.delta.content ?? "";
      finish = c.finish_reason ?? finish;
    }
    expect(role).toBe("assistant");
    expect(text).toBe("Echo: stream me some words please");
    expect(finish).toBe("stop");
    expect(chunks).toBeGreaterThan(5); // role, several word deltas, finish, usage
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });

  test("streaming without include_usage sends no usage chunk", async () => {
    const stream = await client.chat.completions.create({ model: "m", messages: user("a b c"), stream: true });
    for await (const chunk of stream) {
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.usage).toBeUndefined();
    }
  });

  test("stream helper finalChatCompletion", async () => {
    const runner = client.chat.completions.stream({
      model: "gpt-4o-mini",
      messages: user("tell me a story"),
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    runner.on("content", (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("Echo: tell me a story");
    expect(final.choices[0]?.finish_reason).toBe("stop");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe("Echo: tell me a story");
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  test("non-streaming tool call by default when tools are given", async () => {
    const res = await client.chat.completions.create({ model: "m", messages: user("weather?"), tools: [weatherTool] });
    const choice = res.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.id).toStartWith("call_");
    expect(call?.type).toBe("function");
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.function).toEqual({ name: "get_weather", arguments: "{}" });

    const none = await client.chat.completions.create({
      model: "m",
      messages: user("weather?"),
      tools: [weatherTool],
      tool_choice: "none",
    });
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
    expect(none.choices[0]?.finish_reason).toBe("stop");
  });

  test("streamed tool calls via the stream helper give a final message with parsed arguments", async () => {
    const args = '{"city":"Zürich 🌧","days":3}';
    upstream.script({ toolCalls: [{ name: "get_weather", arguments: args }, { name: "get_weather", arguments: '{"city":"Oslo","days":1}' }] });
    const runner = client.chat.completions.stream({ model: "m", messages: user("weather?"), tools: [weatherTool] });
    const argDeltas: string[] = [];
    runner.on("tool_calls.function.arguments.delta", (e) => argDeltas.push(e.arguments_delta));
    const final = await runner.finalChatCompletion();
    const msg = final.choices[0]?.message;
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(msg?.content).toBeNull();
    expect(msg?.tool_calls).toHaveLength(2);
    const [first, second] = msg?.tool_calls ?? [];
    if (first?.type !== "function" || second?.type !== "function") throw new Error("expected function calls");
    expect(first.id).toStartWith("call_");
    expect(first.id).not.toBe(second.id);
    expect(first.function.name).toBe("get_weather");
    expect(first.function.arguments).toBe(args);
    expect(first.function.parsed_arguments).toEqual({ city: "Zürich 🌧", days: 3 });
    expect(second.function.parsed_arguments).toEqual({ city: "Oslo", days: 1 });
    expect(argDeltas.length).toBeGreaterThan(2); // arguments arrive in fragments
  });

  test("400 for a missing model or messages", async () => {
    const noModel = await client.chat.completions.create({ model: "", messages: user("x") }).catch((e: unknown) => e);
    expect(noModel).toBeInstanceOf(OpenAI.BadRequestError);
    const res = await fetch(`${upstream.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ model: "m" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: "messages", type: "invalid_request_error" } });
    const bad = await fetch(`${upstream.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(upstream.calls.at(-1)?.body).toBe("{not json");
  });
});

describe("embeddings and models", () => {
  test("float embeddings", async () => {
    const res = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: ["hello", "world"],
      encoding_format: "float",
    });
    expect(res.object).toBe("list");
    expect(res.model).toBe("text-embedding-3-small");
    expect(res.data).toHaveLength(2);
    expect(res.data[1]?.index).toBe(1);
    expect(res.data[0]?.object).toBe("embedding");
    expect(res.data[0]?.embedding).toHaveLength(8);
    expect(res.data[0]?.embedding).not.toEqual(res.data[1]?.embedding);
    expect(res.usage.total_tokens).toBe(res.usage.prompt_tokens);
    const again = await client.embeddings.create({ model: "e", input: "hello", dimensions: 16, encoding_format: "float" });
    expect(again.data[0]?.embedding).toHaveLength(16);
  });

  test("the SDK's default base64 path decodes to the same vectors", async () => {
    const float = await client.embeddings.create({ model: "e", input: "same text", encoding_format: "float" });
    const dflt = await client.embeddings.create({ model: "e", input: "same text" });
    expect(upstream.calls.at(-1)?.body).toMatchObject({ encoding_format: "base64" });
    expect(Array.from(dflt.data[0]?.embedding ?? [])).toEqual(float.data[0]?.embedding ?? []);
    const norm = Math.hypot(...(float.data[0]?.embedding ?? []));
    expect(norm).toBeCloseTo(1, 5);
  });

  test("models.list", async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      expect(m.object).toBe("model");
      ids.push(m.id);
    }
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect((await client.models.retrieve(ids[0] ?? "")).id).toBe(ids[0] ?? "");
  });
});

describe("errors", () => {
  test("scripted 429 surfaces as RateLimitError with retry-after", async () => {
    upstream.script({ status: 429, headers: { "retry-after": "7" } });
    const err = await client.chat.completions.create({ model: "m", messages: user("x") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as APIError;
    expect(e.status).toBe(429);
    expect(e.code).toBe("rate_limit_exceeded");
    expect(e.headers?.get("retry-after")).toBe("7");
  });

  test("scripted 500 surfaces as InternalServerError; scripts are consumed in order", async () => {
    upstream.script({ status: 500 }, 2);
    for (let i = 0; i < 2; i++) {
      const err = await client.chat.completions.create({ model: "m", messages: user("x") }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect((err as APIError).status).toBe(500);
    }
    const ok = await client.chat.completions.create({ model: "m", messages: user("x") });
    expect(ok.choices[0]?.message.content).toBe("Echo: x");
  });

  test("scripted custom error body", async () => {
    upstream.script({ status: 400, body: { error: { message: "context too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } } });
    const err = await client.chat.completions.create({ model: "m", messages: user("x") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as APIError).code).toBe("context_length_exceeded");
    expect((err as APIError).message).toContain("context too long");
  });

  test("missing API key is a 401 AuthenticationError", async () => {
    const res = await fetch(`${upstream.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: user("x") }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: { type: "invalid_request_error", param: null, code: "invalid_api_key" },
    });
    const noKey = new OpenAI({ apiKey: "unused", baseURL: upstream.url, maxRetries: 0, defaultHeaders: { authorization: "Bearer " } });
    const err = await noKey.chat.completions.create({ model: "m", messages: user("x") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as APIError).status).toBe(401);
  });
});

describe("recording, cuts and aborts", () => {
  test("callCount and calls record every request in order", async () => {
    await client.chat.completions.create({ model: "m1", messages: user("one") });
    await client.embeddings.create({ model: "e", input: "two" });
    await client.chat.completions.create({ model: "m2", messages: user("three") });
    expect(upstream.callCount()).toBe(3);
    expect(upstream.callCount("/v1/chat/completions")).toBe(2);
    expect(upstream.callCount("/chat/completions")).toBe(2);
    expect(upstream.callCount("/v1/embeddings")).toBe(1);
    expect(upstream.calls.map((c) => c.path)).toEqual(["/v1/chat/completions", "/v1/embeddings", "/v1/chat/completions"]);
    const first = upstream.calls[0];
    expect(first?.method).toBe("POST");
    expect(first?.headers.authorization).toBe("Bearer sk-test");
    expect(first?.headers["content-type"]).toContain("application/json");
    expect(first?.body).toMatchObject({ model: "m1", messages: [{ role: "user", content: "one" }] });
    upstream.reset();
    expect(upstream.callCount()).toBe(0);
    expect(upstream.calls).toEqual([]);
  });

  test("a stream cut mid-way makes the SDK throw", async () => {
    upstream.script({ cutAfterChunks: 3 });
    const stream = await client.chat.completions.create({ model: "m", messages: user("one two three four five six"), stream: true });
    let text = "";
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(text).toBe("Echo: one ");
    expect(upstream.aborted).toBe(0); // the server cut, the client did not abort
  });

  test("a paced stream cut mid-way makes the stream helper reject", async () => {
    const paced = await startScriptedUpstream({ chunkDelayMs: 5 });
    const c = new OpenAI({ apiKey: "k", baseURL: paced.url, maxRetries: 0 });
    paced.script({ cutAfterChunks: 2 });
    const err = await c.chat.completions.stream({ model: "m", messages: user("a b c d e") }).finalChatCompletion().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const ok = await c.chat.completions.stream({ model: "m", messages: user("a b c d e") }).finalChatCompletion();
    expect(ok.choices[0]?.message.content).toBe("Echo: a b c d e");
    await paced.stop();
  });

  test("an aborted request during the reply delay increments `aborted`", async () => {
    upstream.script({ delayMs: 2000 });
    const ac = new AbortController();
    const pending = client.chat.completions.create({ model: "m", messages: user("x") }, { signal: ac.signal });
    await waitFor(() => upstream.callCount() === 1);
    ac.abort();
    expect(await pending.catch((e: unknown) => e)).toBeInstanceOf(OpenAI.APIUserAbortError);
    await waitFor(() => upstream.aborted === 1);
    expect(upstream.aborted).toBe(1);
  });

  test("an aborted paced stream increments `aborted`; a completed one does not", async () => {
    const paced = await startScriptedUpstream({ chunkDelayMs: 20 });
    const c = new OpenAI({ apiKey: "k", baseURL: paced.url, maxRetries: 0 });
    const done = await c.chat.completions.create({ model: "m", messages: user("a b"), stream: true });
    for await (const _ of done);
    await Bun.sleep(50);
    expect(paced.aborted).toBe(0);

    const ac = new AbortController();
    const stream = await c.chat.completions.create(
      { model: "m", messages: user("a b c d e f g h i j"), stream: true },
      { signal: ac.signal },
    );
    let n = 0;
    for await (const _ of stream) if (++n === 2) ac.abort();
    await waitFor(() => paced.aborted === 1);
    expect(paced.aborted).toBe(1);
    await paced.stop();
  });

  test("delays do not block other requests", async () => {
    // Order, not time: the fast request is answered while the slow one still waits out its delay.
    upstream.script({ delayMs: 60_000 });
    const ac = new AbortController();
    let slowSettled = false;
    const slow = client.chat.completions
      .create({ model: "m", messages: user("slow") }, { signal: ac.signal, maxRetries: 0 })
      .then(() => "answered", () => "aborted")
      .finally(() => (slowSettled = true));
    await waitFor(() => upstream.callCount() === 1);
    const fast = await client.chat.completions.create({ model: "m", messages: user("fast") });
    expect(fast.choices[0]?.message.content).toBe("Echo: fast");
    expect(slowSettled).toBe(false);
    ac.abort();
    expect(await slow).toBe("aborted");
  });
});
