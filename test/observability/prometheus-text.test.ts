// The Prometheus text format as gw writes it (docs/observability.md "Export"): label escaping,
// bounded label values, series caps and bucket edges, read back by a strict parser.
import { describe, expect, test } from "bun:test";
import { PrometheusMetrics } from "../../src/observability/prometheus-metrics.ts";
import { CounterFamily, escapeLabelValue, formatValue, HistogramFamily, TextWriter } from "../../src/observability/prometheus-text.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { parseExposition, total } from "./prometheus-parse.ts";

const ODD_MODEL = 'acme/odd "quoted" \\ back\\slash\nnewline';

function row(extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: "req_1", projectId: "prj_1", keyId: "key_1", traceId: "trc_1", createdAt: 0, endpoint: "chat.completions",
    requestedModel: "gw-auto", selectedModel: "openai/gpt-4o-mini", provider: "openai", task: "chat", taskSubtype: null,
    inputTokens: 5, outputTokens: 7, cost: 0.5, saved: 0.25, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 100, ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [],
    stream: false, test: false, trace: { cache: { result: "miss" } }, ...extra,
  };
}

const scrape = (m: PrometheusMetrics) =>
  parseExposition(m.render({ health: [], enabledProviders: ["openai"], logQueueRows: 0, otlp: null }));

describe("text format 0.0.4", () => {
  test("label values escape backslash, double quote and line feed, and read back unchanged", () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
    expect(escapeLabelValue("plain/model-1.5")).toBe("plain/model-1.5");
    const m = new PrometheusMetrics({ models: [ODD_MODEL], providers: ["acme"] });
    m.listener(row({ selectedModel: ODD_MODEL, provider: "acme" }));
    const e = scrape(m);
    expect(total(e, "gw_requests_total", { model: ODD_MODEL })).toBe(1);
    expect(total(e, "gw_cost_usd_total", { model: ODD_MODEL })).toBe(0.5);
  });

  test("values: integers, floats, +Inf; HELP text escaped", () => {
    expect([formatValue(3), formatValue(0.25), formatValue(Infinity), formatValue(-Infinity), formatValue(NaN)]).toEqual(["3", "0.25", "+Inf", "-Inf", "NaN"]);
    const w = new TextWriter().family("x_total", "counter", "a \\ b\nc").sample("x_total", "", 1);
    expect(w.toString()).toBe("# HELP x_total a \\\\ b\\nc\n# TYPE x_total counter\nx_total 1\n");
  });

  test("a bucket counts values up to and including its bound", () => {
    const h = new HistogramFamily("h_seconds", "h", ["k"], [0.1, 1]);
    for (const v of [0.1, 0.5, 1, 2]) h.observe(["a"], v);
    const w = new TextWriter();
    h.write(w);
    const e = parseExposition(w.toString());
    expect(e.samples.filter((s) => s.name === "h_seconds_bucket").map((s) => [s.labels.le, s.value])).toEqual([["0.1", 1], ["1", 3], ["+Inf", 4]]);
    expect(total(e, "h_seconds_sum")).toBe(3.6);
    expect(total(e, "h_seconds_count")).toBe(4);
  });
});

describe("bounded cardinality", () => {
  test("models and providers outside the known ones: the first few kept, then `other`; none for null", () => {
    const m = new PrometheusMetrics({ models: ["openai/gpt-4o-mini"], providers: ["openai"] });
    for (let i = 0; i < 80; i++) m.listener(row({ selectedModel: `local/model-${i}` }));
    m.listener(row({ selectedModel: null, provider: null, status: 502, errorCategory: "UPSTREAM_ERROR" }));
    const e = scrape(m);
    const models = new Set(e.samples.filter((s) => s.name === "gw_requests_total").map((s) => s.labels.model));
    expect(models.size).toBeLessThanOrEqual(52);
    expect(total(e, "gw_requests_total", { model: "other" })).toBe(30);
    expect(total(e, "gw_requests_total", { model: "none", provider: "none" })).toBe(1);
    expect(total(e, "gw_requests_total")).toBe(81);
  });

  test("a family stops creating series at its cap and counts what it could not record", () => {
    const c = new CounterFamily("c_total", "c", ["k"], 3);
    for (let i = 0; i < 5; i++) c.inc([`v${i}`]);
    c.inc(["v0"]);
    expect(c.dropped).toBe(2);
    const w = new TextWriter();
    c.write(w);
    expect(total(parseExposition(w.toString()), "c_total")).toBe(4);
  });

  test("a row without a kept trace still counts a cache hit; the listener never throws", () => {
    const m = new PrometheusMetrics({ models: [], providers: [] });
    m.listener(row({ trace: null, cache: "semantic", provider: "cache" }));
    expect(() => m.listener(null as unknown as RequestRecord)).not.toThrow();
    const e = scrape(m);
    expect(total(e, "gw_cache_hits_total", { kind: "semantic" })).toBe(1);
    expect(total(e, "gw_cache_lookups_total", { result: "hit" })).toBe(1);
  });
});
