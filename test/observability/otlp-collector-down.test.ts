// A collector that is down or hangs never delays or fails a request (docs/observability.md
// "Export"): the queue is bounded, the oldest spans are dropped and counted, and shutdown is bounded.
import { describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, get, post, startTestGw } from "../helpers/test-gw.ts";
import { startOtlpReceiver } from "./otlp-receiver.ts";

/** An address where nothing listens: a port that was just freed. */
function refusedEndpoint(): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const url = `http://127.0.0.1:${s.port}`;
  s.stop(true);
  return url;
}

const chat = (url: string, key: string, i: number) =>
  post(`${url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: `question ${i}` }] }, { "x-gw-cache": "off" });

describe("collector down (docs/observability.md Export)", () => {
  test("connection refused: requests answer as usual; a full queue drops the oldest spans and counts them", async () => {
    // A queue of 16 spans holds two requests' spans at most.
    const gw = await startTestGw({ GW_OTLP_ENDPOINT: refusedEndpoint(), GW_OTLP_QUEUE_SPANS: "16", GW_OTLP_INTERVAL_MS: "10", GW_OTLP_TIMEOUT_MS: "500" });
    try {
      for (let i = 0; i < 12; i++) {
        const t = performance.now();
        const res = await chat(gw.url, gw.testKey, i);
        expect(res.status).toBe(200);
        await res.text();
        expect(performance.now() - t).toBeLessThan(2000);
      }
      const stats = gw.deps.otlp!.stats();
      expect(stats.queuedSpans).toBeLessThanOrEqual(16);
      expect(stats.droppedSpans).toBeGreaterThan(0);
      expect(stats.exportedSpans).toBe(0);
      const text = await (await get(`${gw.url}/admin/metrics/prometheus`, ADMIN_TOKEN)).text();
      const dropped = Number(/^gw_otlp_spans_total\{result="dropped"\} (\d+)$/m.exec(text)?.[1]);
      expect(dropped).toBeGreaterThanOrEqual(stats.droppedSpans);
    } finally {
      const t = performance.now();
      await gw.stop();
      // Stopping cuts the backoff short: one last attempt, refused at once.
      expect(performance.now() - t).toBeLessThan(5000);
    }
  });

  test("a collector that accepts and never answers: requests are not held up, and stop is bounded by the timeout", async () => {
    const collector = startOtlpReceiver();
    collector.script(...Array<"hang">(50).fill("hang"));
    const gw = await startTestGw({ GW_OTLP_ENDPOINT: collector.url, GW_OTLP_INTERVAL_MS: "1", GW_OTLP_TIMEOUT_MS: "300" });
    try {
      const first = await chat(gw.url, gw.testKey, 0);
      await first.text();
      // Wait until an export is actually stuck in the collector, then serve requests meanwhile.
      await collector.posted(1);
      const t = performance.now();
      for (let i = 1; i < 6; i++) expect((await chat(gw.url, gw.testKey, i)).status).toBe(200);
      expect(performance.now() - t).toBeLessThan(3000);
      expect(collector.exports.length).toBe(0);
    } finally {
      const t = performance.now();
      await gw.stop();
      expect(performance.now() - t).toBeLessThan(6000);
      await collector.stop();
    }
    const stats = gw.deps.otlp!.stats();
    expect(stats.exportedSpans).toBe(0);
    expect(stats.failedSpans).toBeGreaterThan(0);
  });
});
