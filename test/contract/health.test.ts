// GET /healthz and GET /readyz (docs/api.md "Endpoints", docs/availability.md "Shutdown"): outside
// /v1, no key, JSON with X-Gw-Api-Version; /readyz is 503 with its reasons while gw drains or its
// storage cannot record requests, and then the POST endpoints answer 503 service_unavailable.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { get, post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let base: string;
beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" });
  base = gw.url.replace(/\/v1$/, "");
});
afterAll(() => gw.stop());

function expectProbeHeaders(res: Response): void {
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe("GET /healthz", () => {
  test("200 {status: ok} without a key", async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expectProbeHeaders(res);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  test("a key, even a bad one, changes nothing: no tenant data, no auth", async () => {
    for (const key of [gw.testKey, "gw_test_not-a-key"]) {
      const res = await get(`${base}/healthz`, key);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    }
  });

  test("it is not under /v1", async () => {
    const res = await fetch(`${gw.url}/healthz`);
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});

describe("GET /readyz", () => {
  test("200 {status: ready} on a serving gw", async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expectProbeHeaders(res);
    expect(await res.json()).toEqual({ status: "ready" });
  });

  test("storage that cannot record requests: 503 naming it; /healthz still 200", async () => {
    const storage = gw.lifecycle.storage;
    gw.lifecycle.storage = { healthy: false, reason: "disk full" };
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      expectProbeHeaders(res);
      expect(await res.json()).toEqual({ status: "unavailable", reasons: ["storage: disk full"] });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      gw.lifecycle.storage = storage;
    }
  });

  test("draining: 503 shutting down; POSTs answer 503 service_unavailable with Retry-After, reads still answer", async () => {
    gw.lifecycle.draining = true;
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: "unavailable", reasons: ["shutting down"] });
      const refused = await post(`${gw.url}/chat/completions`, gw.testKey, { messages: [{ role: "user", content: "hi" }] });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.headers.get("x-gw-api-version")).toBe("2026-10-04");
      const { error } = (await refused.json()) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ code: "service_unavailable", type: "api_error", category: "INTERNAL" });
      expect(String(error.request_id)).toStartWith("req_");
      expect((await get(`${gw.url}/models`, gw.testKey)).status).toBe(200);
    } finally {
      gw.lifecycle.draining = false;
    }
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
