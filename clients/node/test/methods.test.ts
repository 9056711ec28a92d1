// gw-client's methods against a real gw in test mode, through the committed build (dist/): chat and
// responses (plain and streamed), embeddings, models, the request log, feedback, metrics, cache.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChatCompletionChunk, Gw, type ResponseStreamEvent, VERSION } from "../dist/index.js";
import { type TestGw, startTestGw } from "../../../test/helpers/test-gw.ts";
import { waitFor } from "../../../test/helpers/wait-for.ts";

let gw: TestGw;
let client: Gw;

beforeAll(async () => {
  gw = await startTestGw();
  client = new Gw({ apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0 });
});
afterAll(() => gw.stop());

const user = (content: string) => [{ role: "user" as const, content }];

describe("models", () => {
  test("chat.completions.create answers a completion with its gw object", async () => {
    const { data, response } = await client.chat.completions.create({ messages: user("Say hello") }).withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.choices[0]?.message.content).toEqual(expect.any(String));
    expect(data.gw.provider).toBe("sandbox");
    expect(data.gw.test).toBe(true);
    expect(response.headers.get("x-gw-request-id")).toBe(data.gw.request_id);
  });

  test("a chat stream yields chunks; stream.gw is the summary once it has ended", async () => {
    const stream = await client.chat.completions.create({ messages: user("Count to three"), stream: true });
    const chunks: ChatCompletionChunk[] = [];
    expect(stream.gw).toBeNull();
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).not.toBe("");
    expect(stream.gw?.provider).toBe("sandbox");
    expect(stream.gw?.request_id).toBe(stream.requestId ?? "");
  });

  test("responses.create answers a response; streamed, typed events and stream.gw", async () => {
    const response = await client.responses.create({ input: "Say hi", instructions: "Be brief" });
    expect(response.object).toBe("response");
    expect(response.output_text).toEqual(expect.any(String));
    expect(response.gw.test).toBe(true);

    const stream = await client.responses.create({ input: "Say hi again", stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.output_text.delta");
    expect(types.at(-1)).toBe("response.completed");
    expect(stream.gw?.provider).toBe("sandbox");
  });

  test("embeddings.create answers deterministic 16-dimension vectors in test mode", async () => {
    const a = await client.embeddings.create({ input: ["one", "two"] });
    const b = await client.embeddings.create({ input: ["one", "two"] });
    expect(a.data).toHaveLength(2);
    expect(a.data[0]?.embedding).toHaveLength(16);
    expect(b.data[0]?.embedding).toEqual(a.data[0]?.embedding ?? []);
  });

  test("models.list answers routing profiles and models in one page", async () => {
    const list = await client.models.list();
    expect(list.has_more).toBe(false);
    expect(list.data.map((m) => m.id)).toContain("gw-auto");
    expect(list.data.some((m) => m.id.includes("/"))).toBe(true);
  });
});

describe("options and headers", () => {
  test("sends User-Agent gw-node/<VERSION> and an Idempotency-Key per call", async () => {
    const seen: Headers[] = [];
    const spy = new Gw({
      apiKey: gw.testKey, baseURL: gw.url, maxRetries: 0,
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    await spy.chat.completions.create({ messages: user("a") });
    await spy.chat.completions.create({ messages: user("b") });
    await spy.models.list();
    expect(seen[0]?.get("user-agent")).toBe(`gw-node/${VERSION}`);
    expect(seen[0]?.get("idempotency-key")).toEqual(expect.any(String));
    expect(seen[1]?.get("idempotency-key")).not.toBe(seen[0]?.get("idempotency-key") ?? "");
    expect(seen[2]?.get("idempotency-key")).toBeNull();
  });

  test("traceId, parentSpan, session, cache and cacheScope reach gw as its headers", async () => {
    const traceId = `trc-node-${crypto.randomUUID().slice(0, 8)}`;
    const options = { traceId, parentSpan: "span-node-1", session: "sess-node-1", cache: "off" as const, cacheScope: "tenant-a" };
    const first = await client.chat.completions.create({ messages: user("What is the capital of France?") }, options).withResponse();
    const again = await client.chat.completions.create({ messages: user("What is the capital of France?") }, options).withResponse();
    expect(again.response.headers.get("x-gw-cache")).toBe("miss");
    await gw.drain();
    const page = await client.requests.list({ traceId });
    expect(page.data.map((e) => e.request_id).sort()).toEqual([first.data.gw.request_id, again.data.gw.request_id].sort());
    expect(page.data.every((e) => e.trace_id === traceId)).toBe(true);
    const { trace } = await client.requests.get(first.data.gw.request_id);
    expect(trace?.spans[0]?.parent_span_id).toBe("span-node-1");
    expect(trace?.session?.id).toBe("sess-node-1");
  });

  test("an explicit idempotencyKey replays: Idempotent-Replayed and the same answer", async () => {
    const idempotencyKey = `node-${crypto.randomUUID()}`;
    const body = { messages: user("Replay me") };
    const first = await client.chat.completions.create(body, { idempotencyKey }).withResponse();
    const second = await client.chat.completions.create(body, { idempotencyKey }).withResponse();
    expect(first.response.headers.get("idempotent-replayed")).toBeNull();
    expect(second.response.headers.get("idempotent-replayed")).toBe("true");
    expect(second.data.id).toBe(first.data.id);
  });
});

describe("request log, feedback, metrics, cache", () => {
  test("requests.list pages; iterate follows the cursor over several pages; get answers the detail", async () => {
    const traceId = `trc-page-${crypto.randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.chat.completions.create({ messages: user(`Page item ${i}`) }, { traceId })).gw.request_id);
    }
    await gw.drain();
    const page = await client.requests.list({ traceId, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.hasMore).toBe(true);
    expect(page.lastId).toEqual(expect.any(String));
    const next = await client.requests.list({ traceId, limit: 2, after: page.lastId ?? undefined });
    expect(next.data.map((e) => e.request_id)).not.toContain(page.data[0]?.request_id);

    const all: string[] = [];
    for await (const entry of client.requests.iterate({ traceId, limit: 2 })) all.push(entry.request_id);
    expect(all).toEqual([...ids].reverse());

    const detail = await client.requests.get(ids[0] ?? "");
    expect(detail.request_id).toBe(ids[0] ?? "");
    expect(detail.trace_id).toBe(traceId);
  });

  test("requests.list filters by workflowId, model and status (sent as workflow_id, model, status)", async () => {
    const workflowId = `wf-${crypto.randomUUID().slice(0, 8)}`;
    const ok = await client.chat.completions.create({ messages: user("Step one"), gw: { workflow_id: workflowId, step: "one" } });
    await client.chat.completions.create({ model: "gw-test:rate_limited", messages: user("Step two"), gw: { workflow_id: workflowId } }).then(() => null, () => null);
    await gw.drain();
    const all = await client.requests.list({ workflowId });
    expect(all.data).toHaveLength(2);
    expect(all.data.every((e) => e.workflow_id === workflowId)).toBe(true);
    const failed = await client.requests.list({ workflowId, status: 429 });
    expect(failed.data.map((e) => e.status)).toEqual([429]);
    const byModel = await client.requests.list({ workflowId, model: ok.gw.selected_model, status: 200 });
    expect(byModel.data.map((e) => e.request_id)).toEqual([ok.gw.request_id]);
  });

  test("requests.feedback records a rating", async () => {
    const completion = await client.chat.completions.create({ messages: user("Rate me") });
    await gw.drain();
    const feedback = await client.requests.feedback(completion.gw.request_id, { rating: 5 });
    expect(feedback).toEqual({ object: "feedback", request_id: completion.gw.request_id, rating: 5 });
  });

  test("metrics.get answers the project's metrics for a period", async () => {
    await client.chat.completions.create({ messages: user("Count me") });
    await gw.drain();
    await waitFor(async () => (await client.metrics.get({ period: "1h" })).requests > 0);
    const metrics = await client.metrics.get({ period: "1h" });
    expect(metrics.object).toBe("metrics");
    expect(metrics.period).toBe("1h");
    expect(metrics.availability).toEqual(expect.any(Number));
  });

  test("cache.invalidate removes tagged answers, and all of them", async () => {
    const body = { messages: user("Define a prime number."), cache: { tags: ["node-client"] } };
    await client.chat.completions.create(body);
    await waitFor(async () => (await client.chat.completions.create(body)).gw.cache === "exact", { what: "a cache hit" });
    const result = await client.cache.invalidate({ tags: ["node-client"] });
    expect(result.object).toBe("cache.invalidation");
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect((await client.chat.completions.create(body)).gw.cache).toBeNull();
    expect((await client.cache.invalidate({ all: true })).object).toBe("cache.invalidation");
  });
});
