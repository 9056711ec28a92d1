// The OTLP exporter's parts (docs/observability.md "Export"): settings, derived ids, the bounded
// queue, batching, retries and partial success, against a scripted collector.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseOtlpConfig, type OtlpConfig } from "../../src/config/otlp.ts";
import { encodeRequest } from "../../src/observability/otlp/encode.ts";
import { OtlpExporter } from "../../src/observability/otlp/exporter.ts";
import { otlpParentSpanId, otlpTraceId } from "../../src/observability/otlp/ids.ts";
import { SpanQueue } from "../../src/observability/otlp/span-queue.ts";
import { createLogger } from "../../src/observability/logger.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";

/** A logged request with `n` spans (the root and n - 1 steps). */
function row(id: string, n = 3, extra: Partial<RequestRecord> = {}): RequestRecord {
  const spans = [["request", 0, 10, null], ...Array.from({ length: n - 1 }, (_, i) => [`step${i}`, i, 1, null])];
  return {
    id, projectId: "prj_1", keyId: "key_1", traceId: `trc_${id}`, createdAt: 1_800_000_000_000, endpoint: "chat.completions",
    requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat", taskSubtype: null,
    inputTokens: 5, outputTokens: 7, cost: 0.001, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 10, ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [],
    stream: false, test: false, trace: { spans }, ...extra,
  };
}

const config = (url: string, over: Partial<OtlpConfig> = {}): OtlpConfig => ({
  ...parseOtlpConfig({ GW_OTLP_ENDPOINT: url })!, intervalMs: 60_000, ...over,
});
const logger = createLogger("silent");

describe("settings (GW_OTLP_*)", () => {
  test("off without GW_OTLP_ENDPOINT; {endpoint}/v1/traces; defaults", () => {
    expect(parseOtlpConfig({})).toBeNull();
    expect(parseOtlpConfig({ GW_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toEqual({
      tracesUrl: "http://127.0.0.1:4318/v1/traces", headers: {}, batchSpans: 512, intervalMs: 1000, queueSpans: 8192, timeoutMs: 5000,
    });
    expect(parseOtlpConfig({ GW_OTLP_ENDPOINT: "https://otel.example/otlp/" })!.tracesUrl).toBe("https://otel.example/otlp/v1/traces");
    expect(parseOtlpConfig({ GW_OTLP_ENDPOINT: "http://c:4318/v1/traces" })!.tracesUrl).toBe("http://c:4318/v1/traces");
  });

  test("GW_OTLP_HEADERS k=v,k2=v2 with percent-decoded values; bad settings fail at start", () => {
    const c = parseOtlpConfig({ GW_OTLP_ENDPOINT: "http://c:4318", GW_OTLP_HEADERS: "Authorization=Basic%20abc, x-scope = team=a" })!;
    expect(c.headers).toEqual({ authorization: "Basic abc", "x-scope": "team=a" });
    expect(() => parseOtlpConfig({ GW_OTLP_ENDPOINT: "not a url" })).toThrow(/GW_OTLP_ENDPOINT/);
    expect(() => parseOtlpConfig({ GW_OTLP_ENDPOINT: "ftp://c" })).toThrow(/http or https/);
    expect(() => parseOtlpConfig({ GW_OTLP_ENDPOINT: "http://c", GW_OTLP_HEADERS: "novalue" })).toThrow(/key=value/);
    expect(() => parseOtlpConfig({ GW_OTLP_ENDPOINT: "http://c", GW_OTLP_BATCH_SPANS: "0" })).toThrow(/GW_OTLP_BATCH_SPANS/);
  });
});

describe("derived ids", () => {
  test("16-byte trace ids per project and 8-byte parent ids, deterministic; W3C span ids kept; all-zero ids hashed", () => {
    expect(otlpTraceId("prj_a", "trc_01m81k9pmf0000080f3q8x")).toMatch(/^[0-9a-f]{32}$/);
    expect(otlpTraceId("prj_a", "my run")).toBe(otlpTraceId("prj_a", "my run"));
    expect(otlpTraceId("prj_a", "my run")).not.toBe(otlpTraceId("prj_a", "my run 2"));
    expect(otlpTraceId("prj_a", "my run")).not.toBe(otlpTraceId("prj_b", "my run"));
    expect(otlpTraceId("prj_a", "4bf92f3577b34da6a3ce929d0e0e4736")).not.toBe(otlpTraceId("prj_b", "4bf92f3577b34da6a3ce929d0e0e4736"));
    expect(otlpTraceId("prj_a", "0".repeat(32))).not.toBe("0".repeat(32));
    expect(otlpParentSpanId("step-3")).toMatch(/^[0-9a-f]{16}$/);
    expect(otlpParentSpanId("00f067aa0ba902b7")).toBe("00f067aa0ba902b7");
  });

  test("a sampled-out trace exports nothing", () => {
    expect(encodeRequest(row("a", 3, { trace: { sampled: false, spans: [["request", 0, 1, null]] } }))).toEqual([]);
    expect(encodeRequest(row("b", 3, { trace: null }))).toEqual([]);
    expect(encodeRequest(row("c", 3)).length).toBe(3);
  });
});

describe("bounded queue", () => {
  test("drops the oldest whole requests to make room, counting their spans; takes whole requests by span budget", () => {
    const q = new SpanQueue(10);
    for (let i = 0; i < 5; i++) q.push(row(`r${i}`, 3), 3);
    expect(q.spans).toBe(9);
    expect(q.dropped).toBe(6);
    expect(q.take(6).map((r) => r.id)).toEqual(["r2", "r3"]);
    expect(q.take(1).map((r) => r.id)).toEqual(["r4"]);
    expect(q.size).toBe(0);
    q.push(row("huge", 11), 11);
    expect(q.dropped).toBe(17);
  });

  test("grows past its first ring without losing order", () => {
    const q = new SpanQueue(5000);
    for (let i = 0; i < 3000; i++) q.push(row(`r${i}`, 1), 1);
    const out = q.take(5000);
    expect(out.length).toBe(3000);
    expect(out[0]!.id).toBe("r0");
    expect(out[2999]!.id).toBe("r2999");
  });
});

describe("sending", () => {
  let collector: OtlpReceiver;
  beforeAll(() => (collector = startOtlpReceiver()));
  afterAll(() => collector.stop());

  test("batches of at most GW_OTLP_BATCH_SPANS spans; a full batch goes at once", async () => {
    const before = collector.exports.length;
    const ex = new OtlpExporter(config(collector.url, { batchSpans: 6 }), logger);
    for (let i = 0; i < 4; i++) ex.listener(row(`b${i}`, 3));
    // Two full batches are due at once, without waiting for the (one-minute) interval.
    await collector.received(before + 2);
    await ex.flush(); // settles the answer of the last POST
    expect(collector.exports.slice(before).map((e) => e.body.resourceSpans[0]!.scopeSpans[0]!.spans.length)).toEqual([6, 6]);
    expect(ex.stats()).toMatchObject({ exportedSpans: 12, droppedSpans: 0, failedSpans: 0, queuedSpans: 0 });
  });

  test("503 is retried with backoff; 400 is not; partial success counts the rejected spans", async () => {
    const ex = new OtlpExporter(config(collector.url), logger);
    collector.script({ status: 503 });
    ex.listener(row("retry", 3));
    const posts = collector.posts();
    await ex.flush();
    expect(collector.posts()).toBe(posts + 2);
    expect(ex.stats()).toMatchObject({ exportedSpans: 3, failedSpans: 0 });

    collector.script({ status: 400 });
    ex.listener(row("bad", 2));
    await ex.flush();
    expect(collector.posts()).toBe(posts + 3);
    expect(ex.stats()).toMatchObject({ exportedSpans: 3, failedSpans: 2 });

    collector.script({ status: 200, body: JSON.stringify({ partialSuccess: { rejectedSpans: "1", errorMessage: "too old" } }) });
    ex.listener(row("partial", 4));
    await ex.flush();
    expect(ex.stats()).toMatchObject({ exportedSpans: 6, failedSpans: 3 });
  });

  test("the listener never throws, whatever it is handed; after shutdown rows are counted as dropped", async () => {
    const ex = new OtlpExporter(config(collector.url), logger);
    expect(() => ex.listener(null as unknown as RequestRecord)).not.toThrow();
    expect(() => ex.listener(row("odd", 1, { trace: { spans: "not a list" } }))).not.toThrow();
    ex.listener(row("last", 2));
    await ex.shutdown(1000);
    expect(ex.stats()).toMatchObject({ exportedSpans: 2, queuedSpans: 0 });
    ex.listener(row("late", 2));
    expect(ex.stats().droppedSpans).toBe(2);
  });
});
