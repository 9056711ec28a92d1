// GET /v1/admin/metrics/prometheus (docs/observability.md "Export"; docs/api.md "Admin API"): the admin
// token only; series move with requests; histograms are cumulative and end in +Inf.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PROMETHEUS_CONTENT_TYPE } from "../../src/observability/prometheus-text.ts";
import { ADMIN_TOKEN, get, post, startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { parseExposition, total, type Exposition } from "./prometheus-parse.ts";

let gw: TestGw;
const path = () => `${gw.url}/admin/metrics/prometheus`;

async function scrape(): Promise<Exposition> {
  await gw.drain();
  const res = await get(path(), ADMIN_TOKEN);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
  return parseExposition(await res.text());
}

const chat = async (model: string, content: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, { model, messages: [{ role: "user", content }], ...extra }, headers);
  await res.text();
  return res;
};

beforeAll(async () => (gw = await startTestGw()));
afterAll(() => gw.stop());

describe('admin token (docs/api.md "Admin API")', () => {
  test("401 without a token, with a wrong token and with a project key", async () => {
    for (const key of [null, "wrong-token", gw.testKey]) {
      const res = await get(path(), key);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    }
  });

  test("absent (404) when GW_ADMIN_TOKEN is unset, like the admin API", async () => {
    const plain = await startTestGw({ GW_ADMIN_TOKEN: "" });
    try {
      expect((await get(`${plain.url}/admin/metrics/prometheus`, ADMIN_TOKEN)).status).toBe(404);
      expect(plain.deps.prometheus).toBeUndefined();
    } finally {
      await plain.stop();
    }
  });
});

describe("series (docs/observability.md Export)", () => {
  test("counters move with requests: requests, errors, tokens, cost, saved, cache", async () => {
    const before = await scrape();
    const ok = await chat("gw-auto", "prometheus counter question one", {}, { "x-gw-cache": "off" });
    expect(ok.status).toBe(200);
    const model = ok.headers.get("x-gw-model")!;
    expect(model).toContain("/");
    expect((await chat("gw-test:upstream_error", "boom")).status).toBe(502);
    // The same question twice: the second is an exact cache hit.
    await chat("gw-auto", "prometheus cache question two");
    await chat("gw-auto", "prometheus cache question two");
    const after = await scrape();
    const delta = (name: string, match: Record<string, string> = {}) => total(after, name, match) - total(before, name, match);

    expect(delta("gw_requests_total")).toBe(4);
    expect(delta("gw_requests_total", { endpoint: "chat.completions", status: "200", provider: "sandbox", model, cache: "none" })).toBeGreaterThanOrEqual(1);
    expect(delta("gw_requests_total", { status: "502", cache: "none" })).toBe(1);
    expect(delta("gw_requests_total", { provider: "cache", cache: "exact" })).toBe(1);
    expect(delta("gw_request_errors_total", { category: "UPSTREAM_ERROR" })).toBe(1);
    expect(delta("gw_tokens_total", { direction: "input", model })).toBeGreaterThan(0);
    expect(delta("gw_tokens_total", { direction: "output", model })).toBeGreaterThan(0);
    expect(delta("gw_cost_usd_total", { model })).toBeGreaterThan(0);
    expect(delta("gw_saved_usd_total")).toBeGreaterThan(0);
    expect(delta("gw_cache_hits_total", { kind: "exact" })).toBe(1);
    expect(delta("gw_cache_lookups_total", { result: "hit" })).toBe(1);
    expect(delta("gw_cache_lookups_total", { result: "miss" })).toBeGreaterThanOrEqual(1);
    expect(delta("gw_request_duration_seconds_count", { endpoint: "chat.completions" })).toBe(4);
    for (const t of ["gw_requests_total", "gw_request_errors_total", "gw_tokens_total", "gw_cost_usd_total"]) expect(after.types.get(t)).toBe("counter");
  });

  test("histograms: cumulative buckets ending in +Inf, equal to _count, with _sum", async () => {
    await chat("gw-auto", "a streamed prometheus question", { stream: true }, { "x-gw-cache": "off" });
    const e = await scrape();
    expect(e.types.get("gw_request_duration_seconds")).toBe("histogram");
    expect(e.types.get("gw_ttft_seconds")).toBe("histogram");
    expect(total(e, "gw_ttft_seconds_count")).toBeGreaterThanOrEqual(1);
    for (const [name, labels] of [["gw_request_duration_seconds", { endpoint: "chat.completions" }], ["gw_ttft_seconds", {}]] as const) {
      const buckets = e.samples.filter((s) => s.name === `${name}_bucket` && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      const les = buckets.map((b) => b.labels.le!);
      expect(les.at(-1)).toBe("+Inf");
      const bounds = les.slice(0, -1).map(Number);
      expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
      expect(buckets.at(-1)!.value).toBe(total(e, `${name}_count`, labels));
      expect(total(e, `${name}_sum`, labels)).toBeGreaterThan(0);
    }
  });

  test("gw_up, provider health as a state set, process metrics, OTLP series only when exporting", async () => {
    const e = await scrape();
    expect(total(e, "gw_up")).toBe(1);
    expect(total(e, "process_resident_memory_bytes")).toBeGreaterThan(1e6);
    expect(total(e, "gw_uptime_seconds")).toBeGreaterThan(0);
    expect(total(e, "process_start_time_seconds")).toBeGreaterThan(1.5e9);
    expect(e.types.get("gw_otlp_spans_total")).toBeUndefined();
    // Failures against a provider open its circuit; the gauge shows one state per provider.
    for (let i = 0; i < 5; i++) gw.deps.health.record("openai", "gpt-4o-mini", { ok: false, failureClass: "transient" });
    const after = await scrape();
    expect(total(after, "gw_provider_health", { provider: "openai", state: "open" })).toBe(1);
    expect(total(after, "gw_provider_health", { provider: "openai", state: "closed" })).toBe(0);
    expect(total(after, "gw_provider_health", { provider: "openai" })).toBe(1);
  });
});
