// GET /v1/admin/metrics/prometheus (docs/api.md "Endpoints", docs/observability.md "Prometheus"):
// text format 0.0.4 behind the admin token, 401 in the envelope without it, absent (404) without
// GW_ADMIN_TOKEN. The series themselves: test/observability/prometheus-endpoint.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, expectError } from "../helpers/admin-api.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

describe("with GW_ADMIN_TOKEN", () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" })));
  afterAll(() => gw.stop());

  test("200, the Prometheus text content type, no-store", async () => {
    const res = await admin(gw, "GET", "/metrics/prometheus");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
    expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
    const text = await res.text();
    expect(text).toMatch(/^# (HELP|TYPE) gw_/m);
    expect(text.endsWith("\n")).toBe(true);
  });

  test("no token, a wrong token or a project key: 401 invalid_api_key in the envelope", async () => {
    for (const token of [null, "wrong-token", `${ADMIN_TOKEN}x`, gw.testKey]) {
      const res = await admin(gw, "GET", "/metrics/prometheus", undefined, token);
      expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
      const error = await expectError(res, 401, "invalid_api_key");
      expect(error.type).toBe("authentication_error");
      expect(String(error.request_id)).toStartWith("req_");
    }
  });
});

describe("without GW_ADMIN_TOKEN", () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw({ GW_ADMIN_TOKEN: "", GW_SEMANTIC_EMBEDDER: "off" })));
  afterAll(() => gw.stop());

  test("404 not_found, whatever the token", async () => {
    for (const token of [ADMIN_TOKEN, null]) await expectError(await admin(gw, "GET", "/metrics/prometheus", undefined, token), 404, "not_found");
  });
});
