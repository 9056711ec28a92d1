// A rule's metric from rollup totals (docs/monitoring.md "Alert rules"): the same numbers GET /metrics
// reports for the same requests, caller-side errors out of availability, null with nothing to measure.
import { describe, expect, test } from "bun:test";
import { ERROR_CODES, type ErrorCode } from "../../../src/errors/codes.ts";
import { metricValue } from "../../../src/monitoring/alerts/metric-value.ts";
import { ALERT_METRICS, type AlertMetric } from "../../../src/monitoring/alerts/rule.ts";
import { metricsObject } from "../../../src/observability/metrics.ts";
import { COLUMNS, type SqlValue } from "../../../src/store/log-batch-codec.ts";
import { addRow, COL, emptyTotals, type RollupTotals } from "../../../src/store/metrics-rollup.ts";

interface Req {
  error?: ErrorCode;
  latency?: number;
  ttft?: number | null;
  fallbacks?: number;
  cache?: string | null;
  cost?: number;
}

/** Totals built the way the rollups build them: one request-log row at a time. */
function totalsOf(requests: Req[]): RollupTotals {
  const t = emptyTotals();
  for (const r of requests) {
    const v: SqlValue[] = COLUMNS.map(() => null);
    v[COL.project] = "proj_1";
    v[COL.createdAt] = 0;
    v[COL.category] = r.error ? ERROR_CODES[r.error].category : null;
    v[COL.latency] = r.latency ?? 100;
    v[COL.ttft] = r.ttft ?? null;
    v[COL.fallbacks] = r.fallbacks ?? 0;
    v[COL.cache] = r.cache ?? null;
    v[COL.input] = 10;
    v[COL.output] = 20;
    v[COL.cost] = r.cost ?? 0.001;
    v[COL.saved] = 0;
    addRow(t, v);
  }
  return t;
}

const times = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

describe("rates", () => {
  // 100 requests: 80 fine (5 from the cache, 10 by a fallback), 10 upstream errors, 4 rate limited,
  // 6 invalid requests (the caller's fault).
  const t = totalsOf([
    ...times(65, {}), ...times(5, { cache: "exact" }), ...times(10, { fallbacks: 1 }),
    ...times(10, { error: "upstream_error" as const }), ...times(4, { error: "rate_limited" as const }),
    ...times(6, { error: "invalid_request" as const, latency: 1 }),
  ]);

  test("error_rate counts every error, availability leaves the caller's out", () => {
    expect(metricValue("error_rate", t)).toBe(20);
    // 94 accountable requests, 14 of them failed on gw's side.
    expect(metricValue("availability", t)).toBe(Math.round((80 / 94) * 100_000) / 1000);
  });

  test("fallback, rate-limited and cache-hit rates are % of all requests", () => {
    expect(metricValue("fallback_rate", t)).toBe(10);
    expect(metricValue("rate_limited_rate", t)).toBe(4);
    expect(metricValue("cache_hit_rate", t)).toBe(5);
  });

  test("requests and cost", () => {
    expect(metricValue("requests", t)).toBe(100);
    expect(metricValue("cost", t)).toBe(0.1);
  });

  test("availability is 100 when every request was the caller's fault", () => {
    expect(metricValue("availability", totalsOf(times(5, { error: "invalid_api_key" as const })))).toBe(100);
  });
});

describe("percentiles", () => {
  test("latency p95/p99 from the histogram, caller-side requests left out", () => {
    const t = totalsOf([
      ...Array.from({ length: 100 }, (_, i) => ({ latency: i + 1 })),
      ...times(50, { error: "invalid_request" as const, latency: 100_000 }),
    ]);
    // Exact below 32 ms; within 4% above (src/lib/histogram.ts).
    expect(Math.abs(metricValue("latency_p95", t)! - 95)).toBeLessThanOrEqual(95 * 0.04);
    expect(Math.abs(metricValue("latency_p99", t)! - 99)).toBeLessThanOrEqual(99 * 0.04);
  });

  test("ttft p95 only over requests that have one; null when none streamed", () => {
    const t = totalsOf([...Array.from({ length: 20 }, (_, i) => ({ ttft: i + 1 })), ...times(80, {})]);
    expect(metricValue("ttft_p95", t)).toBe(19);
    expect(metricValue("ttft_p95", totalsOf(times(10, {})))).toBeNull();
  });

  test("no latency when every request was the caller's fault", () => {
    expect(metricValue("latency_p95", totalsOf(times(3, { error: "invalid_request" as const })))).toBeNull();
  });
});

describe("an empty window", () => {
  const empty = emptyTotals();
  test("rates and percentiles are null; requests and cost are 0", () => {
    for (const metric of ALERT_METRICS) {
      const expected = metric === "requests" || metric === "cost" ? 0 : null;
      expect([metric, metricValue(metric, empty)]).toEqual([metric, expected]);
    }
  });
});

describe("budget_used_pct", () => {
  test("spent over limit, in percent; null without a budget", () => {
    const t = totalsOf(times(3, {}));
    expect(metricValue("budget_used_pct", t, { spent: 8, limit: 10 })).toBe(80);
    expect(metricValue("budget_used_pct", t, { spent: 12.5, limit: 10 })).toBe(125);
    expect(metricValue("budget_used_pct", t)).toBeNull();
    expect(metricValue("budget_used_pct", t, { spent: 1, limit: 0 })).toBeNull();
  });
});

test("the same numbers as GET /metrics for the same totals", () => {
  const t = totalsOf([
    ...Array.from({ length: 37 }, (_, i) => ({ latency: 40 + i * 13, ttft: i % 3 === 0 ? 20 + i : null })),
    ...times(3, { error: "timeout" as const, latency: 30_000 }),
    ...times(2, { error: "budget_exceeded" as const }),
    ...times(4, { fallbacks: 2, cost: 0.0123456789 }),
  ]);
  const m = metricsObject("1h", t);
  const same: Array<[AlertMetric, number | null]> = [
    ["error_rate", m.error_rate], ["availability", m.availability], ["latency_p95", m.latency.p95],
    ["latency_p99", m.latency.p99], ["ttft_p95", m.ttft.p95], ["fallback_rate", m.fallback_rate],
    ["cost", m.cost], ["requests", m.requests],
  ];
  for (const [metric, value] of same) expect([metric, metricValue(metric, t)]).toEqual([metric, value]);
});
