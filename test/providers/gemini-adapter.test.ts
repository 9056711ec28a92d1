// The Gemini adapter end to end against the scripted Gemini upstream (real HTTP through transport.ts):
// complete(), stream(), tool loops, errors before and during the stream, abort.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { googleProvider } from "../../src/providers/google/index.ts";
import { SKIP_SIGNATURE } from "../../src/providers/google/request.ts";
import type { ChatChunk, ChunkEvent } from "../../src/canonical/completion.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";
import type { Provider, ProviderCall } from "../../src/providers/types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { type ScriptedGemini, startScriptedGemini } from "../helpers/scripted-gemini.ts";
import { weatherTool } from "../fixtures/tools.ts";
import { rejection } from "../helpers/upstream-failures.ts";
import { waitFor } from "../helpers/wait-for.ts";

const model = buildCatalog().get("google/gemini-2.5-flash")!;
let upstream: ScriptedGemini;
let provider: Provider;

beforeAll(async () => {
  // Gemini 3's rule on: every replayed tool call must carry a thought signature.
  upstream = await startScriptedGemini({ requireThoughtSignatures: true });
  provider = googleProvider("google", { baseUrl: upstream.url, apiKey: "gm-test" });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

function call(messages: ChatMessage[], extra: Partial<ChatRequest> = {}): ProviderCall {
  const controller = new AbortController();
  return { model, request: { model: model.id, messages, ...extra }, controller, signal: controller.signal, attempt: 0 };
}
const ask = (text: string, extra: Partial<ChatRequest> = {}) => call([{ role: "user", content: text }], extra);

async function collect(events: AsyncIterable<ChunkEvent>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const e of events) out.push(e.chunk);
  return out;
}

describe("complete()", () => {
  test("text answer; gw's extension fields are not sent (Gemini rejects unknown fields)", async () => {
    const res = await provider.complete(ask("Hello there", { routing: { profile: "cheap" }, metadata: { a: "b" }, temperature: 0.3 }));
    expect(res.choices[0]?.message.content).toBe("Echo: Hello there");
    expect(res.choices[0]?.finish_reason).toBe("stop");
    expect(res.model).toBe("gemini-2.5-flash");
    expect(upstream.calls[0]?.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(upstream.calls[0]?.body).toEqual({ contents: [{ role: "user", parts: [{ text: "Hello there" }] }], generationConfig: { temperature: 0.3 } });
  });

  test("usage with cached and thought tokens matches Gemini's totalTokenCount", async () => {
    upstream.script({ cachedTokens: 1000, thoughtsTokens: 30 });
    const res = await provider.complete(ask("Summarize the cached document"));
    const u = res.usage;
    expect(u.prompt_tokens_details?.cached_tokens).toBe(1000);
    expect(u.completion_tokens_details?.reasoning_tokens).toBe(30);
    expect(u.prompt_tokens).toBeGreaterThan(1000);
    expect(u.completion_tokens).toBeGreaterThan(30);
    expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);
  });

  test("a tool loop on a model that signs its calls: the replayed call passes Gemini 3's check", async () => {
    upstream.script({ functionCalls: [{ name: "get_weather", args: { city: "Paris", days: 1 } }], thoughtSignature: "c2lnLTE=" });
    const first = await provider.complete(ask("Weather in Paris?", { tools: [weatherTool] }));
    const message = first.choices[0]!.message;
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    const toolCall = message.tool_calls![0]!;
    expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: "Paris", days: 1 });
    const history: ChatMessage[] = [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: message.content, tool_calls: message.tool_calls },
      { role: "tool", tool_call_id: toolCall.id, content: '{"temp":21}' },
    ];
    const second = await provider.complete(call(history, { tools: [weatherTool] }));
    expect(second.choices[0]?.message.content).toBe("Echo: Weather in Paris?");
    const sent = upstream.calls[1]?.body as { contents: Array<{ parts: object[] }> };
    expect(sent.contents[1]?.parts[0]).toMatchObject({ functionCall: { name: "get_weather" }, thoughtSignature: SKIP_SIGNATURE });
    expect(sent.contents[2]?.parts[0]).toEqual({ functionResponse: { name: "get_weather", response: { temp: 21 } } });
  });

  test("history without signatures (another model's turns) still passes Gemini 3's check", async () => {
    const res = await provider.complete(call([
      { role: "user", content: "Time?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_x", type: "function", function: { name: "now", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_x", content: "noon" },
    ]));
    expect(res.choices[0]?.message.content).toBe("Echo: Time?");
  });

  test("a blocked prompt is a content_filter failure; a SAFETY finish is content_filter", async () => {
    upstream.script({ blockReason: "SAFETY" });
    expect((await rejection(provider.complete(ask("bad")))).failureClass).toBe("content_filter");
    upstream.script({ finishReason: "SAFETY" });
    const res = await provider.complete(ask("borderline"));
    expect(res.choices[0]).toMatchObject({ finish_reason: "content_filter", message: { content: null } });
  });

  test("errors: 429 rate_limit with RetryInfo, 500 transient, a wrong key credential, 404 model_gone", async () => {
    upstream.script({ status: 429 });
    const limited = await rejection(provider.complete(ask("x")));
    expect([limited.failureClass, limited.retryAfter]).toEqual(["rate_limit", 7]);
    upstream.script({ status: 500 });
    expect((await rejection(provider.complete(ask("x")))).publicCode).toBe("upstream_error");
    const wrongKey = googleProvider("google", { baseUrl: upstream.url, apiKey: "nope" });
    expect((await rejection(wrongKey.complete(ask("x")))).failureClass).toBe("credential");
    upstream.script({ status: 404 });
    expect((await rejection(provider.complete(ask("x")))).failureClass).toBe("model_gone");
  });

  test("headers that take too long are a timeout", async () => {
    const slow = googleProvider("google", { baseUrl: upstream.url, apiKey: "gm-test" }, { headersTimeoutMs: 50 });
    upstream.script({ delayMs: 1000 });
    expect((await rejection(slow.complete(ask("x")))).failureClass).toBe("timeout");
  });
});

describe("stream()", () => {
  test("text deltas, role first, finish_reason stop, then the usage chunk", async () => {
    const chunks = await collect(await provider.stream(ask("stream me some words please", { stream: true })));
    const choices = chunks.flatMap((c) => c.choices);
    expect(choices[0]?.delta.role).toBe("assistant");
    expect(choices.map((c) => c.delta.content ?? "").join("")).toBe("Echo: stream me some words please");
    expect(choices.filter((c) => c.delta.content).length).toBeGreaterThan(1);
    expect(choices.at(-1)?.finish_reason).toBe("stop");
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.total_tokens).toBe((last.usage?.prompt_tokens ?? 0) + (last.usage?.completion_tokens ?? 0));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(upstream.calls[0]?.query).toEqual({ alt: "sse" });
  });

  test("parallel function calls stream as OpenAI tool-call deltas, reassembled per index", async () => {
    upstream.script({ functionCalls: [{ name: "get_weather", args: { city: "Paris", days: 1 } }, { name: "get_weather", args: { city: "Rome", days: 2 } }] });
    const chunks = await collect(await provider.stream(ask("Paris and Rome?", { tools: [weatherTool], stream: true })));
    const calls = new Map<number, { id: string; name: string; args: string }>();
    for (const c of chunks) {
      for (const t of c.choices[0]?.delta.tool_calls ?? []) {
        const prev = calls.get(t.index) ?? { id: "", name: "", args: "" };
        calls.set(t.index, { id: prev.id + (t.id ?? ""), name: prev.name + (t.function?.name ?? ""), args: prev.args + (t.function?.arguments ?? "") });
      }
    }
    expect([...calls.keys()]).toEqual([0, 1]);
    expect([...calls.values()].map((c) => [c.name, JSON.parse(c.args)])).toEqual([
      ["get_weather", { city: "Paris", days: 1 }], ["get_weather", { city: "Rome", days: 2 }],
    ]);
    expect(calls.get(0)?.id).not.toBe(calls.get(1)?.id);
    expect(chunks.flatMap((c) => c.choices).at(-1)?.finish_reason).toBe("tool_calls");
  });

  test("an upstream error before the stream rejects stream() itself", async () => {
    upstream.script({ status: 503 });
    const f = await rejection(provider.stream(ask("x", { stream: true })));
    expect([f.failureClass, f.upstreamStatus]).toEqual(["transient", 503]);
  });

  test("a stream cut mid-way, or an error event mid-way, rejects with UpstreamFailure", async () => {
    upstream.script({ cutAfterEvents: 1 });
    const cut = await provider.stream(ask("one two three four five six", { stream: true }));
    const f = await rejection(collect(cut));
    expect([f.failureClass, f.publicCode]).toEqual(["transient", "upstream_error"]);
    upstream.script({ errorAfterEvents: 1 });
    const broken = await provider.stream(ask("one two three four five six", { stream: true }));
    expect((await rejection(collect(broken))).publicCode).toBe("upstream_error");
  });

  test("controller.abort() ends the stream and the upstream sees the client go", async () => {
    const paced = await startScriptedGemini({ chunkDelayMs: 200 });
    const p = googleProvider("google", { baseUrl: paced.url, apiKey: "gm-test" });
    const c = ask("one two three four five six", { stream: true });
    const events = await p.stream(c);
    const it = events[Symbol.asyncIterator]();
    expect((await it.next()).value?.chunk.choices[0]?.delta.content).toBeString();
    c.controller.abort();
    const f = await rejection(it.next());
    expect(f.failureClass).toBe("transient");
    await waitFor(() => paced.aborted === 1);
    expect(paced.aborted).toBe(1);
    await paced.stop();
  });
});
