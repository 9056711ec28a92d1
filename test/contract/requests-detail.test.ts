// GET /requests/{request_id} (docs/api.md "Request detail"): one request with versions, overhead and
// its trace; and the privacy rule of docs/api.md "Request log": prompts and answers are never stored
// nor returned.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { get, post, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { ask, chat, expectLogEntry, isStr, list, type Json } from "./request-log-helpers.ts";

interface Span {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  start_ms: number;
  duration_ms: number;
  status: string;
  error_code: string | null;
}

async function detail(gw: TestGw, id: string): Promise<Json> {
  const res = await get(`${gw.url}/requests/${id}`, gw.testKey);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

const traceOf = (d: Json) => d.trace as Json & { spans: Span[] };

function expectSpan(s: Span): void {
  expect(isStr(s.span_id)).toBe(true);
  expect(typeof s.start_ms).toBe("number");
  expect(s.start_ms).toBeGreaterThanOrEqual(0);
  expect(typeof s.duration_ms).toBe("number");
  expect(s.duration_ms).toBeGreaterThanOrEqual(0);
  expect(["ok", "error"]).toContain(s.status);
  expect(s.error_code === null || typeof s.error_code === "string").toBe(true);
  expect(s.status === "error").toBe(s.error_code !== null);
}

describe('GET /requests/{request_id} (docs/api.md "Request detail")', () => {
  let gw: TestGw;
  let ok: { status: number; id: string };
  let child: { status: number; id: string };
  let failed: { status: number; id: string };
  let fallback: { status: number; id: string };

  beforeAll(async () => {
    gw = await startTestGw();
    ok = await chat(gw, gw.testKey, { ...ask("Say hello."), tags: ["detail"] });
    child = await chat(gw, gw.testKey, ask("Say hello again."), {
      "X-Gw-Trace-Id": "trace-parent-test", "X-Gw-Parent-Span": "caller-span-0001",
    });
    failed = await chat(gw, gw.testKey, { ...ask("Say hello."), model: "gw-test:rate_limited" });
    fallback = await chat(gw, gw.testKey, { ...ask("Say hello."), model: "gw-test:fallback" });
    expect([ok.status, child.status, failed.status, fallback.status]).toEqual([200, 200, 429, 200]);
    await gw.drain();
  });
  afterAll(() => gw.stop());

  test("the log entry plus object, versions, overhead_ms and trace", async () => {
    const d = await detail(gw, ok.id);
    expect(d.object).toBe("request");
    expectLogEntry(d);
    // Same values as the list entry.
    const entry = (await list(gw)).data.find((e) => e.request_id === ok.id)!;
    expect(d).toMatchObject(entry);
    expect(typeof d.versions).toBe("object");
    expect(d.versions).not.toBeNull();
    expect(Array.isArray(d.versions)).toBe(false);
    expect(Object.keys(d.versions as Json).length).toBeGreaterThan(0);
    expect(Object.values(d.versions as Json).every((v) => typeof v === "string")).toBe(true);
    expect(typeof d.overhead_ms).toBe("number");
    expect(d.overhead_ms as number).toBeGreaterThanOrEqual(0);
    expect(d.overhead_ms as number).toBeLessThanOrEqual((d.latency_ms as number) + 1);
    expect(typeof d.trace).toBe("object");
    expect(d.trace).not.toBeNull();
  });

  test("spans: a root `request` span without parent, and auth, route and llm spans under it", async () => {
    const spans = traceOf(await detail(gw, ok.id)).spans;
    expect(Array.isArray(spans)).toBe(true);
    for (const s of spans) expectSpan(s);
    const roots = spans.filter((s) => s.name === "request");
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root.parent_span_id).toBeNull();
    expect(root.status).toBe("ok");
    for (const name of ["authentication", "routing", "llm"]) {
      const span = spans.find((s) => s.name === name);
      expect(span).toBeDefined();
      expect(span!.parent_span_id).toBe(root.span_id);
      expect(span!.status).toBe("ok");
      expect(span!.start_ms + span!.duration_ms).toBeLessThanOrEqual(root.duration_ms + 0.01);
    }
    expect(new Set(spans.map((s) => s.span_id)).size).toBe(spans.length);
  });

  test("X-Gw-Parent-Span makes the root span a child of the caller's span; X-Gw-Trace-Id is the trace id", async () => {
    const d = await detail(gw, child.id);
    expect(d.trace_id).toBe("trace-parent-test");
    const root = traceOf(d).spans.find((s) => s.name === "request")!;
    expect(root.parent_span_id).toBe("caller-span-0001");
  });

  test("attempts, selected, timings and candidates of a served request", async () => {
    const d = await detail(gw, ok.id);
    const trace = traceOf(d);
    const attempts = trace.attempts as Json[];
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ model: d.selected_model, status: "ok" });
    expect(trace.selected).toMatchObject({ model: d.selected_model });
    const timings = trace.timings as Record<string, unknown>;
    expect(Object.keys(timings).length).toBeGreaterThan(0);
    for (const v of Object.values(timings)) expect(typeof v).toBe("number");
    const candidates = trace.candidates as Json[];
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.map((c) => c.model)).toContain(d.selected_model);
    expect(trace.error ?? null).toBeNull();
  });

  test('a fallback: two attempts, the second answers, fallbacks 1, two llm spans (docs/api.md "Test mode")', async () => {
    const d = await detail(gw, fallback.id);
    expect(d.fallbacks).toBe(1);
    const trace = traceOf(d);
    const attempts = trace.attempts as Json[];
    expect(attempts.map((a) => a.status)).toEqual(["error", "ok"]);
    expect(attempts[1]!.model).toBe(d.selected_model);
    const llm = trace.spans.filter((s) => s.name === "llm");
    expect(llm.map((s) => s.status)).toEqual(["error", "ok"]);
  });

  test("a failed request: error spans and trace.error with primary, root_cause, step and recovery", async () => {
    const d = await detail(gw, failed.id);
    expect(d.status).toBe(429);
    expect(d.error_category).toBe("RATE_LIMIT");
    const trace = traceOf(d);
    const root = trace.spans.find((s) => s.name === "request")!;
    expect(root).toMatchObject({ status: "error", error_code: "rate_limited" });
    const llm = trace.spans.find((s) => s.name === "llm")!;
    expect(llm).toMatchObject({ status: "error", error_code: "rate_limited" });
    const error = trace.error as Json;
    expect(error).toBeDefined();
    for (const field of ["primary", "root_cause", "step", "recovery"]) expect(error).toHaveProperty(field);
    expect(JSON.stringify(error.primary)).toContain("rate_limited");
    expect(isStr(error.root_cause)).toBe(true);
    expect(isStr(error.step)).toBe(true);
    expect(isStr(error.recovery)).toBe(true);
    expect((trace.attempts as Json[]).every((a) => a.status === "error")).toBe(true);
    expect(trace.selected ?? null).toBeNull();
  });

  test('trace headers at their limits are kept; one character more is 400 naming the header (docs/api.md "Limits")', async () => {
    const traceId = "t".repeat(40);
    const parent = "p".repeat(24);
    const atLimit = await chat(gw, gw.testKey, ask("Say hello."), { "X-Gw-Trace-Id": traceId, "X-Gw-Parent-Span": parent });
    expect(atLimit.status).toBe(200);
    await gw.drain();
    const d = await detail(gw, atLimit.id);
    expect(d.trace_id).toBe(traceId);
    expect(traceOf(d).spans.find((s) => s.name === "request")!.parent_span_id).toBe(parent);
    expect((await list(gw, `?trace_id=${traceId}`)).data.map((e) => e.request_id)).toEqual([atLimit.id]);
    const cases: Array<[Record<string, string>, string]> = [
      [{ "X-Gw-Trace-Id": "t".repeat(41) }, "x-gw-trace-id"],
      [{ "X-Gw-Parent-Span": "p".repeat(25) }, "x-gw-parent-span"],
    ];
    for (const [headers, param] of cases) {
      const res = await post(`${gw.url}/chat/completions`, gw.testKey, ask("Say hello."), headers);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: Json };
      expect(error.code).toBe("invalid_request");
      expect(String(error.param).toLowerCase()).toBe(param);
    }
  });

  test("an unknown id: 404 not_found", async () => {
    for (const id of ["req_00000000000000000000000", "nope"]) {
      const res = await get(`${gw.url}/requests/${id}`, gw.testKey);
      expect(res.status).toBe(404);
      const { error } = (await res.json()) as { error: Json };
      expect(error).toMatchObject({ code: "not_found", type: "not_found_error" });
    }
  });
});

describe('prompts and answers are never stored nor returned (docs/api.md "Request log")', () => {
  const MARKER = "SECRET_MARKER_8c1f";
  const TAG_CONTROL = "tag-control-5d2e";
  let gw: TestGw;
  const ids: string[] = [];
  const answers: string[] = [];

  beforeAll(async () => {
    gw = await startTestGw();
    const prompt = `Please remember the code ${MARKER} and repeat it.`;
    // The response cache stores answers by design (docs/cache.md); this suite is about the log,
    // traces and admin answers, so its requests bypass the cache.
    const send = async (body: unknown, headers: Record<string, string> = { "x-gw-cache": "off" }) => {
      const res = await post(`${gw.url}/chat/completions`, gw.testKey, body, headers);
      const text = await res.text();
      ids.push(res.headers.get("x-gw-request-id")!);
      return { status: res.status, text };
    };
    const served = await send({ ...ask(prompt), tags: [TAG_CONTROL] });
    expect(served.status).toBe(200);
    const content = (JSON.parse(served.text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
    answers.push(content);
    const streamed = await send({ messages: [{ role: "system", content: MARKER }, { role: "user", content: prompt }], stream: true });
    expect(streamed.status).toBe(200);
    expect((await send({ ...ask(prompt), model: "gw-test:rate_limited" })).status).toBe(429);
    expect((await send({ ...ask(prompt), model: "nope/no-such-model" })).status).toBe(404);
    expect((await send({ ...ask(prompt), model: "gw-test:stream_error", stream: true })).status).toBe(200);
    // Invalid bodies that carry the prompt: a bad role, and JSON broken right at the marker.
    expect((await send({ messages: [{ role: "wizard", content: prompt }] })).status).toBe(400);
    expect((await send(`{"messages":[{"role":"user","content": ${MARKER} }]}`)).status).toBe(400);
    expect(ids.every((id) => typeof id === "string" && id.startsWith("req_"))).toBe(true);
    await gw.drain();
  });
  afterAll(() => gw.stop());

  test("every request was logged", async () => {
    const body = await list(gw, "?limit=100");
    expect(body.data.map((e) => e.request_id).sort()).toEqual([...ids].sort());
  });

  test("the marker is in no response of GET /requests, GET /requests/{id} or GET /models", async () => {
    const texts = [
      await (await get(`${gw.url}/requests?limit=100`, gw.testKey)).text(),
      await (await get(`${gw.url}/models`, gw.testKey)).text(),
    ];
    for (const id of ids) texts.push(await (await get(`${gw.url}/requests/${id}`, gw.testKey)).text());
    expect(texts[0]).toContain(TAG_CONTROL); // the log itself is readable
    for (const text of texts) {
      expect(text).not.toContain(MARKER);
      for (const answer of answers) expect(text).not.toContain(answer);
    }
  });

  test("the marker and the answers are nowhere in the SQLite database or its WAL", async () => {
    const files = ["gw.sqlite", "gw.sqlite-wal"].map((f) => join(gw.dataDir, f)).filter((f) => existsSync(f));
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    // Control: what is stored (tags) is found by this very search.
    expect(bytes.includes(TAG_CONTROL)).toBe(true);
    expect(bytes.includes(MARKER)).toBe(false);
    for (const answer of answers) expect(bytes.includes(answer)).toBe(false);
  });
});
