// Contract tests of POST /chat/completions through a real gw with a test key (sandbox provider):
// answer shape and gw object (docs/api.md "Chat completions", "The gw object"), response headers,
// determinism, streaming framing, max_tokens, and the trace headers (docs/api.md "Request headers").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { get, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { chat, expectError, framesOf, json, readSse, requestDetail, spansOf, user, type Json } from "./chat-helpers.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

interface Choice {
  index: number;
  message: { role: string; content: string | null };
  finish_reason: string;
}
interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}
interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; delta: { role?: string; content?: string | null }; finish_reason: string | null }>;
  usage?: Usage | null;
  gw?: Json;
}

const contentOf = (body: Json) => (body.choices as Choice[])[0]!.message.content;

describe('POST /chat/completions: non-streaming answer (docs/api.md "Chat completions")', () => {
  test("has the chat.completion shape, usage and the gw object of 2.5", async () => {
    const res = await chat(gw, { model: "openai/gpt-4o-mini", messages: user("Say hello to the test suite.") });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = await json(res);
    expect(body.id).toMatch(/^chatcmpl-.+/);
    expect(body.object).toBe("chat.completion");
    expect(Number.isInteger(body.created)).toBe(true);
    expect(Math.abs((body.created as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(body.model).toBe("openai/gpt-4o-mini");

    const choices = body.choices as Choice[];
    expect(choices).toHaveLength(1);
    expect(choices[0]!.index).toBe(0);
    expect(choices[0]!.message.role).toBe("assistant");
    expect(typeof choices[0]!.message.content).toBe("string");
    expect(choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(choices[0]!.finish_reason).toBe("stop");

    const usage = body.usage as Usage;
    expect(Number.isInteger(usage.prompt_tokens) && usage.prompt_tokens > 0).toBe(true);
    expect(Number.isInteger(usage.completion_tokens) && usage.completion_tokens > 0).toBe(true);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);

    const g = body.gw as Json;
    for (const field of ["request_id", "selected_model", "provider", "cost", "saved", "cache", "fallbacks", "test"]) {
      expect(g).toHaveProperty(field);
    }
    expect(g.request_id).toMatch(/^req_.+/);
    expect(g.selected_model).toBe("openai/gpt-4o-mini");
    expect(g.provider).toBe("sandbox");
    expect(g.test).toBe(true);
    expect(g.fallbacks).toBe(0);
    expect(g.cache).toBeNull();
    expect(typeof g.cost).toBe("number");
    expect(typeof g.saved).toBe("number");
    expect(Number.isFinite(g.cost as number) && (g.cost as number) >= 0).toBe(true);
    expect(Number.isFinite(g.saved as number)).toBe(true);
  });

  test("carries X-Gw-Request-Id (= gw.request_id), X-Gw-Model, X-Gw-Provider, X-Gw-Cache and X-Gw-Api-Version", async () => {
    const res = await chat(gw, { model: "gw-auto", messages: user("Headers, please.") });
    expect(res.status).toBe(200);
    const body = await json(res);
    const g = body.gw as Json;
    expect(res.headers.get("x-gw-request-id")).toMatch(/^req_.+/);
    expect(res.headers.get("x-gw-request-id")).toBe(g.request_id as string);
    expect(res.headers.get("x-gw-model")).toBe(g.selected_model as string);
    expect(res.headers.get("x-gw-model")).toBe(body.model as string);
    expect(res.headers.get("x-gw-provider")).toBe("sandbox");
    expect(res.headers.get("x-gw-cache")).toBe("miss");
    expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
  });

  test("X-Gw-Api-Version and X-Gw-Request-Id are on errors and on unknown paths too", async () => {
    await expectError(await chat(gw, { messages: [] }), 400, "invalid_request");
    await expectError(await chat(gw, { messages: user("x") }, {}, null), 401, "invalid_api_key");
    const unknown = await get(`${gw.url}/no/such/path`, gw.testKey);
    await expectError(unknown, 404, "not_found", { type: "not_found_error", category: "NOT_FOUND" });
    await expectError(await get(`${gw.url}/chat/completions`, gw.testKey), 404, "not_found");
  });

  test("the log row of an answer matches the gw object", async () => {
    const body = await json(await chat(gw, { model: "gw-fast", messages: user("Log me."), tags: ["contract"] }));
    const g = body.gw as Json;
    const detail = await requestDetail(gw, g.request_id as string);
    expect(detail.request_id).toBe(g.request_id);
    expect(detail.status).toBe(200);
    expect(detail.error).toBeNull();
    expect(detail.error_category).toBeNull();
    expect(detail.provider).toBe("sandbox");
    expect(detail.selected_model).toBe(g.selected_model);
    expect(detail.requested_model).toBe("gw-fast");
    expect(detail.cost).toBe(g.cost);
    expect(detail.saved).toBe(g.saved);
    expect(detail.fallbacks).toBe(0);
    expect(detail.tags).toEqual(["contract"]);
    const usage = body.usage as Usage;
    expect(detail.input_tokens).toBe(usage.prompt_tokens);
    expect(detail.output_tokens).toBe(usage.completion_tokens);
  });
});

describe('test mode: deterministic simulated answers (docs/api.md "Test mode")', () => {
  test("the same request twice gives the same content; another message gives other content", async () => {
    const req = { model: "gw-balanced", messages: user("Tell me about determinism.") };
    const a = await json(await chat(gw, req));
    const b = await json(await chat(gw, req));
    const c = await json(await chat(gw, { ...req, messages: user("Tell me about something else.") }));
    expect(contentOf(a)).toBe(contentOf(b));
    expect(a.id).not.toBe(b.id);
    expect((a.gw as Json).request_id).not.toBe((b.gw as Json).request_id);
    expect(contentOf(c)).not.toBe(contentOf(a));
  });
});

async function stream(body: Json): Promise<{ res: Response; frames: Json[] }> {
  const res = await chat(gw, { ...body, stream: true });
  expect(res.status).toBe(200);
  return { res, frames: framesOf(await readSse(res)) };
}

describe('streaming framing (docs/api.md "Chat completions")', () => {
  const req = { model: "openai/gpt-4o-mini", messages: user("Stream a short answer, please.") };

  test("chunks with one id, usage on the last chunk, one gw.summary, then [DONE]", async () => {
    const { res, frames } = await stream(req);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
    expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
    expect(res.headers.get("x-gw-provider")).toBe("sandbox");

    const summary = frames.at(-1) as unknown as Chunk;
    const chunks = frames.slice(0, -1) as unknown as Chunk[];
    expect(chunks.length).toBeGreaterThan(2);
    expect(frames.filter((f) => f.object === "gw.summary")).toHaveLength(1);
    const id = chunks[0]!.id;
    expect(id).toMatch(/^chatcmpl-/);
    for (const c of chunks) {
      expect(c.object).toBe("chat.completion.chunk");
      expect(c.id).toBe(id);
      expect(c.model).toBe("openai/gpt-4o-mini");
      expect(Number.isInteger(c.created)).toBe(true);
      expect(Array.isArray(c.choices)).toBe(true);
    }
    const last = chunks.at(-1)!;
    expect(last.usage).toBeDefined();
    expect(last.usage!.total_tokens).toBe(last.usage!.prompt_tokens + last.usage!.completion_tokens);
    expect(chunks.slice(0, -1).every((c) => !c.usage)).toBe(true);
    const finishes = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((f) => f !== null);
    expect(finishes).toEqual(["stop"]);

    expect(summary.object).toBe("gw.summary");
    expect(summary.id).toBe(id);
    expect(summary.choices).toEqual([]);
    expect(summary.model).toBe("openai/gpt-4o-mini");
    expect(Number.isInteger(summary.created)).toBe(true);
    const g = summary.gw!;
    expect(g.request_id).toBe(res.headers.get("x-gw-request-id"));
    expect(g.provider).toBe("sandbox");
    expect(g.test).toBe(true);
    expect(g.fallbacks).toBe(0);
    expect(g.cache).toBeNull();
    expect(g.selected_model).toBe("openai/gpt-4o-mini");
    expect(typeof g.cost).toBe("number");
    expect(typeof g.saved).toBe("number");
  });

  test("the concatenated deltas equal the non-streamed content of the same request", async () => {
    const whole = contentOf(await json(await chat(gw, req)));
    const { frames } = await stream(req);
    const text = (frames as unknown as Chunk[]).flatMap((c) => c.choices.map((ch) => ch.delta.content ?? "")).join("");
    expect(text).toBe(whole!);
  });

  test("the stream's log row is written with the streamed usage and status 200", async () => {
    const { res, frames } = await stream({ ...req, cache: { mode: "bypass" } });
    const usage = (frames.at(-2) as unknown as Chunk).usage!;
    const detail = await requestDetail(gw, res.headers.get("x-gw-request-id")!);
    expect(detail.status).toBe(200);
    expect(detail.error).toBeNull();
    expect(detail.stream).toBe(true);
    expect(detail.output_tokens).toBe(usage.completion_tokens);
    expect(detail.ttft_ms === null || Number.isInteger(detail.ttft_ms)).toBe(true);
    expect(spansOf(detail).filter((s) => s.name === "llm")).toHaveLength(1);
  });

  test("the official openai SDK reads the stream, gw.summary included", async () => {
    const client = new OpenAI({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
    const s = await client.chat.completions.create({
      model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Stream a short answer, please." }], stream: true,
    });
    let text = "";
    let chunks = 0;
    for await (const c of s) {
      chunks++;
      text += c.choices[0]?.delta.content ?? "";
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text).toBe(contentOf(await json(await chat(gw, req)))!);
  });
});

describe('max_tokens (docs/api.md "Chat completions")', () => {
  for (const limit of [1, 3, 5]) {
    test(`max_tokens ${limit} cuts the answer: finish_reason length, completion_tokens <= ${limit}`, async () => {
      const body = await json(await chat(gw, { model: "gw-auto", messages: user(`Cut me at ${limit}.`), max_tokens: limit }));
      const choice = (body.choices as Choice[])[0]!;
      expect(choice.finish_reason).toBe("length");
      const usage = body.usage as Usage;
      expect(usage.completion_tokens).toBeLessThanOrEqual(limit);
      expect(usage.completion_tokens).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    });
  }

  test("a generous max_tokens does not cut: finish_reason stop", async () => {
    const body = await json(await chat(gw, { model: "gw-auto", messages: user("Do not cut me."), max_tokens: 4000 }));
    expect((body.choices as Choice[])[0]!.finish_reason).toBe("stop");
  });

  test("streamed with max_tokens, the finish chunk says length", async () => {
    const { frames } = await stream({ model: "gw-auto", messages: user("Cut the stream."), max_tokens: 2 });
    const finishes = (frames as unknown as Chunk[]).flatMap((c) => (c.choices ?? []).map((ch) => ch.finish_reason)).filter(Boolean);
    expect(finishes).toEqual(["length"]);
    expect((frames.at(-2) as unknown as Chunk).usage!.completion_tokens).toBeLessThanOrEqual(2);
  });
});

describe('trace headers (docs/api.md "Request headers")', () => {
  test("X-Gw-Trace-Id becomes the request's trace_id and filters GET /requests", async () => {
    const res = await chat(gw, { messages: user("Trace me.") }, { "x-gw-trace-id": "my-trace-1" });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("x-gw-request-id")!;
    const other = await chat(gw, { messages: user("Not in that trace.") });
    const otherId = other.headers.get("x-gw-request-id")!;
    const detail = await requestDetail(gw, requestId);
    expect(detail.trace_id).toBe("my-trace-1");

    const list = await json(await get(`${gw.url}/requests?trace_id=my-trace-1`, gw.testKey));
    const ids = (list.data as Json[]).map((r) => r.request_id);
    expect(ids).toContain(requestId);
    expect(ids).not.toContain(otherId);
    expect((list.data as Json[]).every((r) => r.trace_id === "my-trace-1")).toBe(true);
  });

  test("without X-Gw-Trace-Id each request gets its own trc_ id", async () => {
    const a = (await chat(gw, { messages: user("own trace a") })).headers.get("x-gw-request-id")!;
    const b = (await chat(gw, { messages: user("own trace b") })).headers.get("x-gw-request-id")!;
    const [da, db] = [await requestDetail(gw, a), await requestDetail(gw, b)];
    expect(da.trace_id).toMatch(/^trc_/);
    expect(db.trace_id).toMatch(/^trc_/);
    expect(da.trace_id).not.toBe(db.trace_id);
  });

  test("X-Gw-Parent-Span becomes the parent of the root request span", async () => {
    const res = await chat(gw, { messages: user("Child span.") }, { "x-gw-parent-span": "span-from-caller-01" });
    expect(res.status).toBe(200);
    const spans = spansOf(await requestDetail(gw, res.headers.get("x-gw-request-id")!));
    const root = spans.find((s) => s.name === "request")!;
    expect(root.parent_span_id).toBe("span-from-caller-01");
    const children = spans.filter((s) => s.name !== "request");
    expect(children.length).toBeGreaterThan(0);
    expect(children.every((s) => s.parent_span_id === root.span_id)).toBe(true);
  });

  test("without X-Gw-Parent-Span the root span has no parent", async () => {
    const res = await chat(gw, { messages: user("Root span.") });
    const root = spansOf(await requestDetail(gw, res.headers.get("x-gw-request-id")!)).find((s) => s.name === "request")!;
    expect(root.parent_span_id).toBeNull();
  });
});
