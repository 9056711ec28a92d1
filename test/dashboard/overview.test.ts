// GET /dashboard/api/overview (docs/dashboard.md "Overview API"): known traffic (real requests with
// a test key, plus older rows through the log's insert path), then for every period the overview's
// `metrics` equals GET /v1/metrics field by field, and the series and per-model sums equal the totals.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestIdAt } from "../../src/lib/ids.ts";
import { METRICS_PERIODS, type MetricsPeriod } from "../../src/schema/metrics.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { ask, chat, type Json } from "../contract/request-log-helpers.ts";
import { ADMIN_TOKEN, get, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let gw: TestGw;
let operator: string;
let projectSession: string;

async function signIn(token: string): Promise<string> {
  const res = await fetch(`${gw.url.replace(/\/v1$/, "")}/dashboard/api/session`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }),
  });
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const dash = (path: string, cookie: string) => fetch(`${gw.url.replace(/\/v1$/, "")}/dashboard/api${path}`, { headers: { cookie } });

/** A finished older request of the project, `ago` ms before now. */
function older(i: number, ago: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const createdAt = Date.now() - ago;
  return {
    id: `${requestIdAt(createdAt)}0000cccc${String(i).padStart(4, "0")}`, projectId: gw.projectId, keyId: null, traceId: `trc_o${i}`,
    createdAt, endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: i % 2 ? "openai/gpt-4o-mini" : "anthropic/claude-haiku-4-5",
    provider: i % 2 ? "openai" : "anthropic", task: "chat", taskSubtype: null, inputTokens: 100 + i, outputTokens: 20 + i,
    cost: 0.0001 * (i + 1), saved: i % 3 === 0 ? 0.00005 : 0, cache: i % 3 === 0 ? "exact" : i % 5 === 0 ? "semantic" : null,
    status: i % 7 === 0 ? 502 : 200, errorCode: i % 7 === 0 ? "upstream_error" : null, errorMessage: null,
    errorCategory: i % 7 === 0 ? "UPSTREAM_ERROR" : null, latencyMs: 50 + 37 * i, ttftMs: i % 2 ? 20 + i : null, overheadMs: 1,
    fallbacks: i % 4 === 0 ? 1 : 0, workflowId: null, step: null, tags: [], stream: false, test: false, trace: null, ...over,
  };
}

beforeAll(async () => {
  gw = await startTestGw();
  const models = [undefined, undefined, "gw-test:rate_limited", "gw-test:invalid_request", "gw-test:fallback", "nope/no-such-model"];
  for (const [i, model] of models.entries()) await chat(gw, gw.testKey, { ...ask(`Overview ${i}.`), ...(model ? { model } : {}) });
  // The same question twice: the second is an exact cache hit.
  await chat(gw, gw.testKey, ask("Overview repeat."));
  await chat(gw, gw.testKey, ask("Overview repeat."));
  const ages = [10 * 60_000, 3 * HOUR, 20 * HOUR, 2 * DAY, 5 * DAY, 12 * DAY, 29 * DAY, 31 * DAY];
  gw.deps.repos.requests.insertPrepared(ages.flatMap((ago, a) => [0, 1, 2].map((j) => prepareRow(older(a * 3 + j, ago + j * 1000)))));
  await gw.drain();
  operator = await signIn(ADMIN_TOKEN);
  projectSession = await signIn(gw.testKey);
});
afterAll(() => gw.stop());

describe("GET /dashboard/api/overview", () => {
  test("metrics equal GET /v1/metrics for every period, field by field; series and by_model add up to them", async () => {
    for (const period of Object.keys(METRICS_PERIODS) as MetricsPeriod[]) {
      const v1 = (await (await get(`${gw.url}/metrics?period=${period}`, gw.testKey)).json()) as Json;
      const res = await dash(`/overview?period=${period}&project=${gw.projectId}`, operator);
      expect(res.status).toBe(200);
      const o = (await res.json()) as {
        object: string; period: string; metrics: Json; cache: { hits: number; exact: number; semantic: number; hit_rate: number };
        tokens: { input: number; output: number };
        series: { bucket_ms: number; start: string; points: Array<{ t: number; requests: number; errors: Record<string, number>; cache_exact: number; cache_semantic: number; cost: number; saved: number }> };
        by_model: Array<{ model: string; requests: number; cost: number; points: Array<{ t: number; cost: number }> }>;
      };
      expect(o.object).toBe("dashboard.overview");
      expect(o.period).toBe(period);
      expect(Object.keys(o.metrics).sort()).toEqual(Object.keys(v1).sort());
      for (const field of Object.keys(v1)) expect(o.metrics[field]).toEqual(v1[field]);
      const requests = v1.requests as number;
      expect(requests).toBeGreaterThan(0);
      const sum = (f: (p: (typeof o.series.points)[number]) => number) => o.series.points.reduce((s, p) => s + f(p), 0);
      expect(sum((p) => p.requests)).toBe(requests);
      expect(sum((p) => p.cost)).toBeCloseTo(v1.cost as number, 9);
      expect(sum((p) => p.saved)).toBeCloseTo(v1.saved as number, 9);
      const errors: Record<string, number> = {};
      for (const p of o.series.points) for (const [c, n] of Object.entries(p.errors)) errors[c] = (errors[c] ?? 0) + n;
      expect(errors).toEqual(v1.errors as Record<string, number>);
      expect(sum((p) => p.cache_exact)).toBe(o.cache.exact);
      expect(sum((p) => p.cache_semantic)).toBe(o.cache.semantic);
      expect(o.by_model.reduce((s, m) => s + m.requests, 0)).toBe(requests);
      expect(o.by_model.reduce((s, m) => s + m.cost, 0)).toBeCloseTo(v1.cost as number, 9);
      for (const m of o.by_model) expect(m.points.map((p) => p.t)).toEqual(o.series.points.map((p) => p.t));
    }
  });

  test("the windows differ by period (older rows count only in the longer ones) and 1h has 60 minute points", async () => {
    const counts: Record<string, number> = {};
    for (const period of ["1h", "24h", "7d", "30d"]) {
      const o = (await (await dash(`/overview?period=${period}`, projectSession)).json()) as { metrics: { requests: number }; series: { bucket_ms: number; points: unknown[] } };
      counts[period] = o.metrics.requests;
      if (period === "1h") expect(o.series).toMatchObject({ bucket_ms: 60_000 });
      if (period === "1h") expect(o.series.points.length).toBe(60);
    }
    expect(counts["1h"]! < counts["24h"]! && counts["24h"]! < counts["7d"]! && counts["7d"]! < counts["30d"]!).toBe(true);
  });

  test("the cache split counts the exact hit of the repeated question and the seeded hits", async () => {
    const o = (await (await dash("/overview?period=30d", projectSession)).json()) as { cache: { hits: number; exact: number; semantic: number; hit_rate: number }; metrics: { requests: number } };
    expect(o.cache.exact).toBeGreaterThanOrEqual(1);
    expect(o.cache.hits).toBe(o.cache.exact + o.cache.semantic);
    expect(o.cache.hit_rate).toBe(Math.round((o.cache.hits / o.metrics.requests) * 100_000) / 1000);
  });

  test("no session: 401; a bad period: 400 naming it; another project's data never shows", async () => {
    expect((await fetch(`${gw.url.replace(/\/v1$/, "")}/dashboard/api/overview`)).status).toBe(401);
    const bad = await dash("/overview?period=2h", operator);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("period");
    const other = gw.newProject("empty");
    const o = (await (await dash(`/overview?period=30d&project=${other}`, operator)).json()) as { metrics: { requests: number }; by_model: unknown[] };
    expect(o.metrics.requests).toBe(0);
    expect(o.by_model).toEqual([]);
    expect((await dash(`/overview?project=${other}`, projectSession)).status).toBe(404);
  });
});
