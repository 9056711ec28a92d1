// The latency histogram behind GET /metrics percentiles (docs/api.md "Metrics";
// docs/observability.md "Metrics and log growth"): fixed log-spaced buckets, a stored form that round-trips, and
// percentiles within the documented 4% of the exact nearest-rank percentile.
import { describe, expect, test } from "bun:test";
import { addEncoded, bucketOf, bucketValue, emptyHistogram, encodeHistogram, HISTOGRAM_BUCKETS, percentile } from "../../src/lib/histogram.ts";
import { percentileSorted } from "../../bench/lib/stats.ts";
import { prng } from "../../bench/observability/rows.ts";

describe("histogram buckets (docs/observability.md: percentile error)", () => {
  test("about 190 buckets from 0 ms to one hour", () => {
    expect(HISTOGRAM_BUCKETS).toBeGreaterThan(150);
    expect(HISTOGRAM_BUCKETS).toBeLessThan(200);
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(-5)).toBe(0);
    expect(bucketOf(3_600_000)).toBe(HISTOGRAM_BUCKETS - 1);
    expect(bucketOf(86_400_000)).toBe(HISTOGRAM_BUCKETS - 1);
  });

  test("exact below 32 ms; every value up to an hour is reported within 4%", () => {
    for (let v = 0; v < 32; v++) expect(bucketValue(bucketOf(v))).toBe(v);
    let previous = -1;
    for (let v = 0; v < 3_600_000; v += v < 10_000 ? 1 : 37) {
      const b = bucketOf(v);
      expect(b).toBeGreaterThanOrEqual(previous);
      previous = b;
      expect(Math.abs(bucketValue(b) - v)).toBeLessThanOrEqual(v * 0.04);
    }
  });

  test("the stored form round-trips and adds up", () => {
    const rand = prng(7);
    const h = emptyHistogram();
    for (let i = 0; i < 500; i++) h[bucketOf(rand() * 20_000)]!++;
    const into = emptyHistogram();
    addEncoded(into, encodeHistogram(h));
    addEncoded(into, encodeHistogram(h));
    expect([...into]).toEqual([...h].map((c) => c * 2));
    expect(encodeHistogram(emptyHistogram()).byteLength).toBe(0);
  });

  test("percentiles of random samples are within 4% of the exact nearest-rank percentile", () => {
    const rand = prng(11);
    for (let trial = 0; trial < 50; trial++) {
      const n = 1 + Math.floor(rand() * 2000);
      const scale = [5, 200, 3000, 60_000][trial % 4]!;
      const values = Array.from({ length: n }, () => Math.round(scale * Math.exp(rand() * 3 - 1.5)));
      const h = emptyHistogram();
      for (const v of values) h[bucketOf(v)]!++;
      values.sort((a, b) => a - b);
      for (const p of [50, 95, 99]) {
        const exact = percentileSorted(values, p);
        expect(Math.abs(percentile(h, p)! - exact)).toBeLessThanOrEqual(exact * 0.04);
      }
    }
    expect(percentile(emptyHistogram(), 50)).toBeNull();
  });
});
