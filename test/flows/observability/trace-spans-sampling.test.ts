// The request trace (docs/api.md "Request detail"; issue 8 items 1-3): every documented span under a
// root `request` span whose parent comes from X-Gw-Parent-Span, X-Gw-Trace-Id grouping, the
// optimization and cache sections, trace sampling at each rate (whole traces, errors always kept),
// and zero retention keeping caller free text out of the log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { traceIdSampled } from "../../../src/pipeline/stages/record.ts";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

interface Span { span_id: string; parent_span_id: string | null; name: string; start_ms: number; duration_ms: number; status: string; error_code: string | null }
interface Detail { versions: Record<string, string>; overhead_ms: number; latency_ms: number; trace_id: string; tags: string[]; workflow_id: string | null; step: string | null; trace: Record<string, unknown> & { spans?: Span[]; sampled?: boolean } }

// A counter, not Math.random(): a long run of digits reads as personal data (a phone or card number).
let asked = 0;
const chat = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  post(`${gw.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: `Tell me a fact about owls, number ${++asked}` }], ...body }, headers);
async function detail(key: string, id: string): Promise<Detail> {
  await gw.drain();
  return (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Detail;
}
async function projectKey(policy: Record<string, unknown>): Promise<string> {
  const project = gw.newProject(`p-${JSON.stringify(policy)}`);
  await fetch(`${gw.url}/admin/projects/${project}`, {
    // Business: zero retention is a Business feature (docs/billing.md "Plans").
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ plan: "business", policy }),
  });
  return gw.key({ projectId: project, scopes: ["chat", "requests"] });
}

describe("spans", () => {
  test("root request span with the caller's parent, and one span per pipeline step, all under it", async () => {
    const res = await chat(gw.testKey, {}, { "x-gw-parent-span": "caller-span-01", "x-gw-trace-id": "trace-owls-1" });
    const d = await detail(gw.testKey, res.headers.get("x-gw-request-id")!);
    const spans = d.trace.spans!;
    expect(spans.map((s) => s.name)).toEqual(["request", "authentication", "parse", "guard", "analysis", "cache", "optimization", "routing", "llm"]);
    const root = spans[0]!;
    expect(root.parent_span_id).toBe("caller-span-01");
    for (const s of spans.slice(1)) {
      expect(s.parent_span_id).toBe(root.span_id);
      expect(s.start_ms).toBeGreaterThanOrEqual(0);
      expect(s.start_ms + s.duration_ms).toBeLessThanOrEqual(root.duration_ms + 0.01);
      expect(s).toMatchObject({ status: "ok", error_code: null });
    }
    expect(d.trace_id).toBe("trace-owls-1");
    // The components that handled it, and gw's own time within the request's.
    expect(Object.keys(d.versions)).toEqual(expect.arrayContaining(["gateway", "router", "intelligence", "cache", "semantic_cache", "token_engine", "guard"]));
    expect(d.overhead_ms).toBeGreaterThan(0);
    expect(d.overhead_ms).toBeLessThanOrEqual(d.latency_ms + 1);
    expect(d.trace.optimization).toMatchObject({ mode: "off", stages: [] });
    expect((d.trace.optimization as { original_tokens: number }).original_tokens).toBeGreaterThan(0);
    expect(d.trace.cache).toMatchObject({ result: "miss", miss_reason: "not_found" });
    expect(Object.keys(d.trace.timings as object)).toEqual(expect.arrayContaining(["authentication", "guard", "analysis", "cache", "optimization", "routing", "call", "total"]));
  });

  test("one llm span per provider call: a fallback shows two, the first failed", async () => {
    const res = await chat(gw.testKey, { model: "gw-test:fallback" });
    const spans = (await detail(gw.testKey, res.headers.get("x-gw-request-id")!)).trace.spans!;
    const llm = spans.filter((s) => s.name === "llm");
    expect(llm.length).toBe(2);
    expect(llm[0]!.status).toBe("error");
    expect(llm[1]!.status).toBe("ok");
  });

  test("X-Gw-Trace-Id groups requests: GET /requests?trace_id= lists them", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await chat(gw.testKey, {}, { "x-gw-trace-id": "trace-group-7" })).headers.get("x-gw-request-id")!);
    await gw.drain();
    const list = (await (await fetch(`${gw.url}/requests?trace_id=trace-group-7`, { headers: { authorization: `Bearer ${gw.testKey}` } })).json()) as { data: Array<{ request_id: string }> };
    expect(list.data.map((e) => e.request_id).sort()).toEqual(ids.sort());
  });
});

describe("trace sampling (trace_sample_rate)", () => {
  for (const rate of [1, 0.5, 0.1, 0.01]) {
    test(`rate ${rate}: the kept share is near the rate, decided per trace id`, async () => {
      const key = await projectKey({ trace_sample_rate: rate });
      const N = 200;
      const kept = new Map<string, boolean>();
      const rows: Array<{ id: string; traceId: string }> = [];
      for (let i = 0; i < N; i++) {
        const traceId = `t-${rate}-${i % 100}`; // two requests per trace id
        const res = await chat(key, {}, { "x-gw-trace-id": traceId, "x-gw-cache": "off" });
        rows.push({ id: res.headers.get("x-gw-request-id")!, traceId });
      }
      await gw.drain();
      for (const r of rows) {
        const d = await detail(key, r.id);
        const sampled = d.trace.sampled !== false;
        if (sampled) expect(d.trace.spans!.length).toBeGreaterThan(3);
        // Whole traces: both requests of a trace id agree.
        if (kept.has(r.traceId)) expect(sampled).toBe(kept.get(r.traceId)!);
        kept.set(r.traceId, sampled);
      }
      const share = [...kept.values()].filter(Boolean).length / kept.size;
      if (rate === 1) expect(share).toBe(1);
      if (rate === 0.5) expect(share).toBeGreaterThan(0.3);
      if (rate < 1) expect(share).toBeLessThan(rate === 0.5 ? 0.7 : 0.3);
    });
  }

  test("the draw over 20,000 trace ids matches each rate closely", () => {
    for (const rate of [0.5, 0.1, 0.01]) {
      let kept = 0;
      for (let i = 0; i < 20_000; i++) if (traceIdSampled(`trc_${i.toString(36)}x${i * 7919}`, rate)) kept++;
      expect(Math.abs(kept / 20_000 - rate)).toBeLessThan(rate * 0.15);
    }
  });

  test("errors keep their traces at any rate; the log row is always there", async () => {
    const key = await projectKey({ trace_sample_rate: 0.01 });
    for (let i = 0; i < 10; i++) {
      const res = await chat(key, { model: "gw-test:upstream_error" }, { "x-gw-trace-id": `err-${i}` });
      expect(res.status).toBe(502);
      const d = await detail(key, res.headers.get("x-gw-request-id")!);
      expect(d.trace.sampled).not.toBe(false);
      expect(d.trace.error).toMatchObject({ primary: { code: "upstream_error" } });
    }
  });
});

describe("zero retention", () => {
  test("tags, workflow id, step and session are not stored", async () => {
    const key = await projectKey({ retention: "zero" });
    const res = await chat(key, { tags: ["customer-acme"], gw: { workflow_id: "wf-secret", step: "draft" } }, { "x-gw-session": "sess-9" });
    const d = await detail(key, res.headers.get("x-gw-request-id")!);
    expect(d).toMatchObject({ tags: [], workflow_id: null, step: null });
    expect(d.trace.session).toBeNull();
    expect(JSON.stringify(d)).not.toContain("customer-acme");
    expect(JSON.stringify(d)).not.toContain("wf-secret");
  });
});
