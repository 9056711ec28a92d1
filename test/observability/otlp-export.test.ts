// OpenTelemetry export over OTLP/HTTP JSON (docs/observability.md "Export"; docs/api.md
// "Request detail"): a real gw pointed at a scripted collector; spans, links, GenAI attributes, no content.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { otlpParentSpanId, otlpTraceId } from "../../src/observability/otlp/ids.ts";
import { get, post, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { attr, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.ts";

const PROMPT = "Summarize the quarterly figures for ZEBRA-PROMPT-7781 in two lines";
const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

let collector: OtlpReceiver;
let gw: TestGw;
const answers: string[] = [];
const ids: Record<string, string> = {};

async function chat(name: string, model: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, { model, messages: [{ role: "user", content: PROMPT }], ...extra }, { "x-gw-cache": "off", ...headers });
  ids[name] = res.headers.get("x-gw-request-id")!;
  answers.push(await res.text());
  return res;
}

/** The spans of one request, the root first (the exporter keeps a request's spans together). */
function spansOf(requestId: string): ReceivedSpan[] {
  const root = collector.spans().find((s) => s.name === "request" && attr(s.attributes, "gw.request_id") === requestId);
  if (!root) throw new Error(`no exported root span for ${requestId}`);
  return collector.spans().filter((s) => s.spanId === root.spanId || s.parentSpanId === root.spanId);
}

beforeAll(async () => {
  collector = startOtlpReceiver();
  gw = await startTestGw({ GW_OTLP_ENDPOINT: collector.url, GW_OTLP_HEADERS: "x-api-key=k%201,X-Tenant=gw", GW_OTLP_INTERVAL_MS: "20" });
  expect((await chat("ok", "gw-auto", { "x-gw-trace-id": "agent-run-42", "x-gw-parent-span": "caller-span-1" })).status).toBe(200);
  expect((await chat("same-trace", "gw-auto", { "x-gw-trace-id": "agent-run-42" })).status).toBe(200);
  expect((await chat("failed", "gw-test:upstream_error")).status).toBe(502);
  expect((await chat("fallback", "gw-test:fallback")).status).toBe(200);
  expect((await chat("w3c", "gw-auto", { "x-gw-trace-id": "4bf92f3577b34da6a3ce929d0e0e4736", "x-gw-parent-span": "00f067aa0ba902b7" })).status).toBe(200);
  const emb = await post(`${gw.url}/embeddings`, gw.testKey, { input: PROMPT });
  ids.embeddings = emb.headers.get("x-gw-request-id")!;
  answers.push(await emb.text());
  await gw.drain();
  // The timer sends the batch on its own; awaiting the collector, not a sleep.
  await collector.received(1);
  await gw.deps.otlp!.flush();
});

afterAll(async () => {
  await gw.stop();
  await collector.stop();
});

describe("OTLP/HTTP export (docs/observability.md Export)", () => {
  test("POST {endpoint}/v1/traces, JSON, with GW_OTLP_HEADERS; resource service.name gw and service.version", () => {
    const first = collector.exports[0]!;
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("x-api-key")).toBe("k 1");
    expect(first.headers.get("x-tenant")).toBe("gw");
    for (const e of collector.exports) {
      const [rs] = e.body.resourceSpans;
      expect(attr(rs!.resource.attributes, "service.name")).toBe("gw");
      expect(attr(rs!.resource.attributes, "service.version")).toMatch(/^\d+\.\d+\.\d+/);
      expect(rs!.scopeSpans[0]!.scope.name).toBe("gw");
    }
  });

  test("one span per gw span, ids and times as GET /requests/{id} shows them", async () => {
    const spans = spansOf(ids.ok!);
    const detail = (await (await get(`${gw.url}/requests/${ids.ok}`, gw.testKey)).json()) as {
      created_at: string; trace: { spans: Array<{ name: string; span_id: string; start_ms: number; duration_ms: number }> };
    };
    // The request span, the pipeline's steps (authentication, parse, analysis, cache, routing, ...)
    // and the llm call, named as the request detail names them.
    expect(spans.map((s) => s.name)).toEqual(detail.trace.spans.map((s) => s.name));
    expect(spans[0]!.name).toBe("request");
    expect(spans.at(-1)!.name).toBe("llm");
    expect(spans.length).toBeGreaterThanOrEqual(6);
    expect(spans.map((s) => s.spanId)).toEqual(detail.trace.spans.map((s) => s.span_id));
    const t0 = BigInt(Date.parse(detail.created_at)) * 1_000_000n;
    detail.trace.spans.forEach((d, i) => {
      const s = spans[i]!;
      expect(Number(BigInt(s.startTimeUnixNano) - t0) / 1e6).toBeCloseTo(d.start_ms, 3);
      expect(Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6).toBeCloseTo(d.duration_ms, 3);
    });
    const [root, ...children] = spans;
    expect(root!.kind).toBe(2);
    expect(root!.traceId).toMatch(HEX32);
    for (const c of children) {
      expect(c.traceId).toBe(root!.traceId);
      expect(c.spanId).toMatch(HEX16);
      expect(c.parentSpanId).toBe(root!.spanId);
      expect(c.kind).toBe(c.name === "llm" ? 3 : 1);
      expect(c.status).toBeUndefined();
    }
  });

  test("the caller's X-Gw-Parent-Span is the root's parent; X-Gw-Trace-Id groups requests into one trace", () => {
    const [root] = spansOf(ids.ok!);
    expect(root!.parentSpanId).toBe(otlpParentSpanId("caller-span-1"));
    expect(root!.parentSpanId).toMatch(HEX16);
    expect(root!.traceId).toBe(otlpTraceId(gw.projectId, "agent-run-42"));
    const [sibling] = spansOf(ids["same-trace"]!);
    expect(sibling!.traceId).toBe(root!.traceId);
    expect(sibling!.parentSpanId).toBeUndefined();
    expect(spansOf(ids.failed!)[0]!.traceId).not.toBe(root!.traceId);
    expect(attr(root!.attributes, "gw.trace_id")).toBe("agent-run-42");
  });

  test("W3C ids from the caller are linked, not joined: the trace id is the project's (docs/security.md)", () => {
    const [root] = spansOf(ids.w3c!);
    expect(root!.traceId).toBe(otlpTraceId(gw.projectId, "4bf92f3577b34da6a3ce929d0e0e4736"));
    expect(root!.traceId).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(root!.parentSpanId).toBe("00f067aa0ba902b7");
    expect(root!.links).toEqual([{ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" }]);
  });

  test("GenAI semantic conventions on the root and the llm span, with the logged token counts", () => {
    const row = gw.deps.repos.requests.get(gw.projectId, ids.ok!)!;
    const spans = spansOf(ids.ok!);
    const root = spans[0]!.attributes;
    expect(attr(root, "gen_ai.operation.name")).toBe("chat");
    expect(attr(root, "gen_ai.provider.name")).toBe("sandbox");
    expect(attr(root, "gen_ai.system")).toBe("sandbox");
    expect(attr(root, "gen_ai.request.model")).toBe("gw-auto");
    expect(attr(root, "gen_ai.response.model")).toBe(row.selectedModel!);
    expect(attr(root, "gen_ai.usage.input_tokens")).toBe(row.inputTokens);
    expect(attr(root, "gen_ai.usage.output_tokens")).toBe(row.outputTokens);
    expect(row.inputTokens).toBeGreaterThan(0);
    expect(attr(root, "gw.request_id")).toBe(ids.ok!);
    expect(attr(root, "gw.project_id")).toBe(gw.projectId);
    expect(attr(root, "gw.cost")).toBe(row.cost);
    expect(attr(root, "gw.saved")).toBe(row.saved);
    expect(attr(root, "gw.cache")).toBe("none");
    expect(attr(root, "gw.fallbacks")).toBe(0);
    expect(attr(root, "gw.task")).toBe(row.task!);
    expect(attr(root, "http.response.status_code")).toBe(200);
    expect(attr(root, "http.route")).toBe("/v1/chat/completions");
    expect(attr(root, "error.type")).toBeUndefined();
    const llm = spans.find((s) => s.name === "llm")!.attributes;
    expect(attr(llm, "gen_ai.operation.name")).toBe("chat");
    expect(attr(llm, "gen_ai.provider.name")).toBe("sandbox");
    expect(attr(llm, "gen_ai.request.model")).toBe(row.selectedModel!);
    expect(attr(llm, "gen_ai.response.model")).toBe(row.selectedModel!);
    expect(attr(llm, "gen_ai.usage.output_tokens")).toBe(row.outputTokens);
    expect(attr(llm, "gw.attempt")).toBe(0);
  });

  test("a failed request: status ERROR with the error code on the root and the failed span", () => {
    const spans = spansOf(ids.failed!);
    const root = spans[0]!;
    expect(root.status).toEqual({ code: 2, message: "upstream_error" });
    expect(attr(root.attributes, "error.type")).toBe("upstream_error");
    expect(attr(root.attributes, "http.response.status_code")).toBe(502);
    expect(attr(root.attributes, "gw.error_category")).toBe("UPSTREAM_ERROR");
    const failed = spans.slice(1).filter((s) => s.status);
    expect(failed.length).toBeGreaterThan(0);
    for (const s of failed) {
      expect(s.status).toEqual({ code: 2, message: "upstream_error" });
      expect(attr(s.attributes, "error.type")).toBe("upstream_error");
    }
  });

  test("a fallback: one llm span per attempt, the first failed, the last carrying the answer", () => {
    const llm = spansOf(ids.fallback!).filter((s) => s.name === "llm");
    expect(llm.length).toBe(2);
    expect(llm[0]!.status?.code).toBe(2);
    expect(llm[1]!.status).toBeUndefined();
    expect(attr(llm[0]!.attributes, "gen_ai.usage.output_tokens")).toBeUndefined();
    expect(attr(llm[1]!.attributes, "gen_ai.usage.output_tokens")).toBeGreaterThan(0);
    expect(attr(spansOf(ids.fallback!)[0]!.attributes, "gw.fallbacks")).toBe(1);
  });

  test("embeddings: gen_ai.operation.name embeddings", () => {
    const spans = spansOf(ids.embeddings!);
    expect(attr(spans[0]!.attributes, "gen_ai.operation.name")).toBe("embeddings");
    expect(attr(spans.find((s) => s.name === "llm")!.attributes, "gen_ai.operation.name")).toBe("embeddings");
  });

  test("no prompt and no answer text reaches the collector", () => {
    const all = collector.exports.map((e) => e.text).join("\n");
    expect(all).not.toContain("ZEBRA-PROMPT-7781");
    expect(all).not.toContain("quarterly");
    for (const body of answers) {
      const content = (JSON.parse(body) as { choices?: Array<{ message: { content: string } }> }).choices?.[0]?.message.content;
      if (content) expect(all).not.toContain(content);
    }
  });
});
