// The Overview page of the compiled gw (docs/dashboard.md "Pages"): the period chooser lives in the URL,
// and the cards show the numbers GET /v1/metrics gives the same project for the same period.
import { expect, test } from "bun:test";
import { signIn, watchedPage } from "../helpers/browser.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { chat, projectWithKey } from "./gw-api.ts";
import { browserSuite, TEST_MS } from "./fixture.ts";

const s = browserSuite();

interface Metrics {
  requests: number;
  availability: number;
  error_rate: number;
  fallback_rate: number;
}

test("the 1h period goes into the URL and the cards equal GET /v1/metrics for that period", async () => {
  const { key } = await projectWithKey(s.gw, "overview", ["chat", "requests"]);
  await chat(s.gw, key, "What is two plus two?");
  await chat(s.gw, key, "What is two plus two?");
  await chat(s.gw, key, "What is three plus three?", {}, { model: "gw-test:fallback" });
  await chat(s.gw, key, "Fail, please.", {}, { model: "gw-test:upstream_error" });
  const metrics = async () =>
    (await (await fetch(`${s.gw.origin}/v1/metrics?period=1h`, { headers: { authorization: `Bearer ${key}` } })).json()) as Metrics;
  // Metrics come from rollups written off the request path.
  await waitFor(async () => (await metrics()).requests === 4, { timeoutMs: 30_000, what: "4 requests in GET /v1/metrics" });
  const want = await metrics();

  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, key);
    await w.page.getByRole("link", { name: "1h", exact: true }).click();
    await w.page.waitForURL((url) => url.searchParams.get("period") === "1h");
    const card = (metric: string) => w.page.locator(`[data-metric="${metric}"]`);
    await card("requests").filter({ hasText: /^4$/ }).waitFor();
    for (const metric of ["requests", "availability", "error_rate", "fallback_rate"] as const) {
      expect({ metric, value: Number(await card(metric).getAttribute("data-value")) }).toEqual({ metric, value: want[metric] });
    }
    for (const metric of ["p50", "p95", "p99", "ttft", "cost", "saved", "cache_hit_rate"]) await card(metric).waitFor();
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);

test("each period link puts its period in the URL and loads that period's numbers", async () => {
  const w = await watchedPage(s.browser, s.gw.origin);
  try {
    await signIn(w.page, s.gw.origin, s.gw.adminToken);
    for (const period of ["1h", "24h", "7d", "30d"]) {
      const fetched = w.page.waitForResponse((res) => res.url().includes("/dashboard/api/overview") && new URL(res.url()).searchParams.get("period") === period).catch(() => null);
      await w.page.getByRole("link", { name: period, exact: true }).click();
      await w.page.waitForURL((url) => url.searchParams.get("period") === period);
      // 24h is the default: its data may already be there from the first load.
      if (period !== "24h") expect((await fetched)?.status()).toBe(200);
      await w.page.locator('[data-metric="requests"]').waitFor();
    }
    await w.page.waitForLoadState("networkidle");
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  } finally {
    await w.context.close();
  }
}, TEST_MS);
