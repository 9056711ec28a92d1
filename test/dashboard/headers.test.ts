// Every dashboard page, asset and /dashboard/api answer carries the CSP and the other security headers,
// errors included; the public API's answers do not (docs/dashboard.md "Security headers").
import { afterAll, beforeAll, expect, test } from "bun:test";
import { assetPaths } from "../../src/dashboard/assets.ts";
import { CONTENT_SECURITY_POLICY } from "../../src/dashboard/security-headers.ts";
import { createApp, type App } from "../../src/http/app.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let app: App;
const call = (path: string, init: RequestInit = {}) => app.handle(new Request(`http://localhost${path}`, init));

beforeAll(async () => {
  gw = await startTestGw();
  app = createApp(gw.deps);
});
afterAll(() => gw.stop());

function expectSecurityHeaders(res: Response, what: string): void {
  const got = {
    csp: res.headers.get("content-security-policy"), nosniff: res.headers.get("x-content-type-options"),
    referrer: res.headers.get("referrer-policy"), frame: res.headers.get("x-frame-options"), what,
  };
  expect(got).toEqual({ csp: CONTENT_SECURITY_POLICY, nosniff: "nosniff", referrer: "no-referrer", frame: "DENY", what });
}

test("the policy is the strict one: nothing inline, nothing from elsewhere, no framing", () => {
  expect(CONTENT_SECURITY_POLICY).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe");
});

test("pages and assets, found or not", async () => {
  for (const p of ["/", "/requests", "/requests/req_x", "/cache", "/recommendations", "/projects", "/monitoring", "/audit"]) {
    expectSecurityHeaders(await call(p), p);
    expectSecurityHeaders(await call(p, { method: "HEAD" }), `HEAD ${p}`);
  }
  for (const p of assetPaths()) {
    expectSecurityHeaders(await call(p, { headers: { "accept-encoding": "gzip" } }), p);
    const etag = (await call(p)).headers.get("etag")!;
    const notModified = await call(p, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expectSecurityHeaders(notModified, `304 ${p}`);
  }
  const missing = await call("/assets/nope-123.js");
  expect(missing.status).toBe(404);
  expectSecurityHeaders(missing, "unknown asset");
});

test("the JSON API: success, refusals, parse errors and unknown paths", async () => {
  const signIn = await call("/dashboard/api/session", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: ADMIN_TOKEN }),
  });
  expect(signIn.status).toBe(200);
  expectSecurityHeaders(signIn, "sign-in");
  const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
  const current = await call("/dashboard/api/session", { headers: { cookie } });
  expect(current.status).toBe(200);
  expectSecurityHeaders(current, "session");

  const cases: [string, RequestInit, number][] = [
    ["/dashboard/api/session", {}, 401],
    ["/dashboard/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }, 400],
    ["/dashboard/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: "wrong" }) }, 401],
    ["/dashboard/api/session", { method: "DELETE", headers: { cookie } }, 403],
    ["/dashboard/api/no-such-endpoint", {}, 404],
  ];
  for (const [path, init, status] of cases) {
    const res = await call(path, init);
    expect({ path, method: init.method ?? "GET", status: res.status }).toEqual({ path, method: init.method ?? "GET", status });
    expect(((await res.json()) as { error: { code: string } }).error.code).toBeTruthy();
    expectSecurityHeaders(res, `${init.method ?? "GET"} ${path} -> ${status}`);
  }
});

test("the public API and unknown paths outside the dashboard do not get them", async () => {
  const models = await call("/v1/models", { headers: { authorization: `Bearer ${gw.testKey}` } });
  expect(models.status).toBe(200);
  expect(models.headers.get("content-security-policy")).toBeNull();
  const refused = await call("/v1/models");
  expect(refused.status).toBe(401);
  expect(refused.headers.get("content-security-policy")).toBeNull();
  expect((await call("/healthz")).headers.get("content-security-policy")).toBeNull();
  const unknown = await call("/nope");
  expect(unknown.status).toBe(404);
  expect(unknown.headers.get("content-security-policy")).toBeNull();
});
