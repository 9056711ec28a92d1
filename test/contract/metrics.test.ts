// GET /metrics (docs/api.md "Metrics", "Errors"): a known mix of requests sent through
// a real server (test keys, `gw-test:<error>` models, streams), then every field of the metrics
// object checked against the mix and against the request log itself.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Metrics } from "../../src/schema/metrics.ts";
import { percentileSorted } from "../../bench/lib/stats.ts";
import { get, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { ask, chat, list, type Json } from "./request-log-helpers.ts";

const checkShape = TypeCompiler.Compile(Metrics);

async function metrics(gw: TestGw, query = "", key = gw.testKey): Promise<Json> {
  const res = await get(`${gw.url}/metrics${query}`, key);
  expect(res.status).toBe(200);
  const body = (await res.json()) as Json;
  if (!checkShape.Check(body)) throw new Error(`not a metrics object: ${JSON.stringify([...checkShape.Errors(body)][0])}`);
  return body;
}

/** Every entry of the project's log, all pages. */
async function wholeLog(gw: TestGw): Promise<Json[]> {
  const out: Json[] = [];
  let after = "";
  for (;;) {
    const page = await list(gw, `?limit=100${after}`);
    out.push(...page.data);
    if (!page.has_more) return out;
    after = `&after=${page.last_id}`;
  }
}

/** The model and how often it is sent; categories as docs/api.md "Errors" names them. */
const MIX: Array<{ model?: string; stream?: boolean; n: number }> = [
  { n: 3 },
  { stream: true, n: 2 },
  { model: "gw-test:fallback", n: 1 },
  { model: "gw-test:rate_limited", n: 2 },
  { model: "gw-test:upstream_error", n: 1 },
  { model: "gw-test:timeout", n: 1 },
  { model: "gw-test:invalid_request", n: 2 },
  { model: "gw-test:budget_exceeded", n: 1 },
  { model: "nope/no-such-model", n: 1 },
];

describe('GET /metrics: the metrics object (docs/api.md "Metrics")', () => {
  let gw: TestGw;
  let log: Json[];

  beforeAll(async () => {
    gw = await startTestGw();
    for (const { model, stream, n } of MIX) {
      for (let i = 0; i < n; i++) {
        await chat(gw, gw.testKey, { ...ask(`Say hello ${i}.`), ...(model ? { model } : {}), ...(stream ? { stream: true } : {}) }, { "X-Gw-Cache": "off" });
      }
    }
    await gw.drain();
    log = await wholeLog(gw);
  });
  afterAll(() => gw.stop());

  test("counts every logged request and each error category", async () => {
    const m = await metrics(gw);
    expect(log.length).toBe(14);
    expect(m).toMatchObject({ object: "metrics", period: "24h", requests: 14 });
    expect(m.errors).toEqual({
      BUDGET_EXCEEDED: 1, MODEL_NOT_FOUND: 1, RATE_LIMIT: 2, TIMEOUT: 1, UPSTREAM_ERROR: 1, VALIDATION_FAILED: 2,
    });
  });

  test("availability leaves caller-side failures out; error_rate counts every failure", async () => {
    const m = await metrics(gw);
    // 4 caller-side failures (2 validation, 1 budget, 1 unknown model) leave 10 accountable
    // requests, of which 4 failed on gw's side (2 rate limits, 1 upstream error, 1 timeout).
    expect(m.availability).toBe(60);
    expect(m.error_rate).toBe(Math.round((8 / 14) * 100_000) / 1000);
    expect(m.fallback_rate).toBe(Math.round((1 / 14) * 100_000) / 1000);
  });

  test("cost, saved and cost per request add up the log's entries", async () => {
    const m = await metrics(gw);
    const cost = log.reduce((n, e) => n + (e.cost as number), 0);
    const saved = log.reduce((n, e) => n + (e.saved as number), 0);
    expect(cost).toBeGreaterThan(0);
    expect(m.cost as number).toBeCloseTo(cost, 9);
    expect(m.saved as number).toBeCloseTo(saved, 9);
    expect(m.cost_per_request as number).toBeCloseTo(cost / 14, 9);
  });

  test("latency percentiles over accountable requests and ttft over streams, within 4%", async () => {
    const m = await metrics(gw);
    const callerSide = new Set(["VALIDATION_FAILED", "BUDGET_EXCEEDED", "MODEL_NOT_FOUND"]);
    const latencies = log.filter((e) => !callerSide.has(e.error_category as string)).map((e) => e.latency_ms as number).sort((a, b) => a - b);
    const ttfts = log.filter((e) => e.ttft_ms !== null).map((e) => e.ttft_ms as number).sort((a, b) => a - b);
    expect(latencies.length).toBe(10);
    expect(ttfts.length).toBe(2);
    const near = (got: unknown, exact: number) => expect(Math.abs((got as number) - exact)).toBeLessThanOrEqual(exact * 0.04);
    const latency = m.latency as Record<string, number>;
    const ttft = m.ttft as Record<string, number>;
    for (const p of [50, 95, 99] as const) near(latency[`p${p}`], percentileSorted(latencies, p));
    for (const p of [50, 95] as const) near(ttft[`p${p}`], percentileSorted(ttfts, p));
  });

  test("every period answers; all of these requests fall in each of them", async () => {
    for (const period of ["1h", "24h", "7d", "30d"]) {
      const m = await metrics(gw, `?period=${period}`);
      expect(m.period).toBe(period);
      expect(m.requests).toBe(14);
    }
  });
});

describe('GET /metrics: period, scope and project isolation (docs/api.md "Metrics", "Authentication")', () => {
  let gw: TestGw;
  beforeAll(async () => {
    gw = await startTestGw();
    await chat(gw, gw.testKey, ask("Say hello."));
  });
  afterAll(() => gw.stop());

  test("an unknown period answers 400 invalid_request naming `period`", async () => {
    for (const bad of ["2h", "", "24H", "1d"]) {
      const res = await get(`${gw.url}/metrics?period=${bad}`, gw.testKey);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: Json };
      expect(body.error).toMatchObject({ code: "invalid_request", param: "period", category: "VALIDATION_FAILED" });
    }
  });

  test("a key without the `requests` scope gets 403; no key gets 401", async () => {
    const res = await get(`${gw.url}/metrics`, gw.key({ scopes: ["chat"] }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: Json }).error.code).toBe("permission_denied");
    expect((await get(`${gw.url}/metrics`, null)).status).toBe(401);
  });

  test("another project sees only its own requests: none, availability 100, no percentiles", async () => {
    const other = gw.key({ projectId: gw.newProject(), scopes: ["requests"] });
    const m = await metrics(gw, "", other);
    expect(m).toEqual({
      object: "metrics", period: "24h", requests: 0, availability: 100, latency: { p50: null, p95: null, p99: null },
      ttft: { p50: null, p95: null }, error_rate: 0, fallback_rate: 0, errors: {}, cost: 0, saved: 0, cost_per_request: 0,
    });
    expect((await metrics(gw)).requests).toBe(1);
  });
});
