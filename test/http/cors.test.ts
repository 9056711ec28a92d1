// CORS (docs/api.md "CORS"): off by default, no hook and no header; GW_CORS_ORIGINS answers preflights
// on every path under /v1 with 204 and gives actual answers, errors and streams included, the
// origin and every gw response header to expose. Through app.handle.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/env.ts";
import { createApp, type App } from "../../src/http/app.ts";
import { Lifecycle } from "../../src/http/lifecycle.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const APP_ORIGIN = "https://app.example.com";
const OTHER_ORIGIN = "https://evil.example.com";
const PATHS = [
  "/v1/chat/completions", "/v1/responses", "/v1/embeddings", "/v1/models", "/v1/models/openai/gpt-4o-mini",
  "/v1/requests", "/v1/requests/req_x/feedback", "/v1/metrics", "/v1/cache/invalidate", "/v1/admin/projects/prj_x", "/v1/no-such-path",
];

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

/** An app over the test gw's deps with GW_CORS_ORIGINS set to `origins` (or unset). */
function appWith(origins: string | undefined, lifecycle = new Lifecycle()): App {
  const corsOrigins = loadConfig({}, origins === undefined ? {} : { GW_CORS_ORIGINS: origins }).corsOrigins;
  return createApp({ ...gw.deps, config: { ...gw.deps.config, corsOrigins } }, lifecycle);
}

const call = (app: App, path: string, init: RequestInit = {}) => app.handle(new Request(`http://localhost${path}`, init));
const preflight = (app: App, path: string, origin: string, asked = "authorization, content-type") =>
  call(app, path, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": asked } });
const chat = (app: App, key: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  call(app, "/v1/chat/completions", {
    method: "POST",
    headers: { origin: APP_ORIGIN, authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content: "hello there" }], ...extra }),
  });
const corsHeaders = (res: Response) => [...res.headers.keys()].filter((n) => n.startsWith("access-control-") || n === "vary");
/** The response headers gw itself sets that a page may want to read. */
const gwHeaders = (res: Response) => [...res.headers.keys()].filter((n) =>
  n.startsWith("x-gw-") || n.startsWith("x-ratelimit-") || n === "retry-after" || n === "idempotent-replayed" || n === "request-id");

function expectExposed(res: Response, origin = APP_ORIGIN): void {
  expect(res.headers.get("access-control-allow-origin")).toBe(origin);
  const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(", ");
  for (const name of gwHeaders(res)) if (!exposed.includes(name)) throw new Error(`${name} is sent but not exposed`);
}

describe("off (GW_CORS_ORIGINS unset)", () => {
  test("no request hook is registered: nothing runs per request", () => {
    expect(appWith(undefined).event.request?.length ?? 0).toBe((appWith(APP_ORIGIN).event.request?.length ?? 0) - 1);
  });

  test("a preflight gets what it got before (404 in the envelope) and no CORS header; answers get none", async () => {
    const app = appWith(undefined);
    const res = await preflight(app, "/v1/chat/completions", APP_ORIGIN);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(corsHeaders(res)).toEqual([]);
    const answer = await chat(app, gw.testKey);
    expect(answer.status).toBe(200);
    expect(corsHeaders(answer)).toEqual([]);
  });
});

describe("GW_CORS_ORIGINS with a list", () => {
  let app: App;
  beforeAll(() => {
    app = appWith(`${APP_ORIGIN}, http://localhost:5173`);
  });

  test("a preflight on every API path: 204, the origin, methods, headers, max-age, Vary: Origin; no key needed", async () => {
    for (const path of PATHS) {
      const res = await preflight(app, path, APP_ORIGIN);
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      expect(res.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
      expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE");
      expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      expect(res.headers.get("vary")).toContain("Origin");
      expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
      expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
      expect(await res.text()).toBe("");
    }
    expect((await preflight(app, "/v1/models", "http://localhost:5173")).headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  });

  test("allowed headers: gw's, the SDKs' families; an unknown one asked for is left out", async () => {
    const asked = "Authorization, content-type, idempotency-key, x-gw-session, x-gw-trace-id, anthropic-version, x-api-key, "
      + "x-stainless-os, x-stainless-retry-count, anthropic-dangerous-direct-browser-access, x-custom-thing";
    const allowed = ((await preflight(app, "/v1/messages", APP_ORIGIN, asked)).headers.get("access-control-allow-headers") ?? "").split(", ");
    for (const name of ["authorization", "content-type", "idempotency-key", "x-gw-session", "x-gw-trace-id", "x-gw-parent-span", "x-gw-cache",
      "x-gw-cache-scope", "anthropic-version", "anthropic-beta", "x-api-key", "x-stainless-os", "x-stainless-retry-count",
      "anthropic-dangerous-direct-browser-access"]) expect(allowed).toContain(name);
    expect(allowed).not.toContain("x-custom-thing");
  });

  test("another origin: the preflight gets today's 404 and no CORS header; its answers none either", async () => {
    const res = await preflight(app, "/v1/chat/completions", OTHER_ORIGIN);
    expect(res.status).toBe(404);
    expect(corsHeaders(res)).toEqual([]);
    const answer = await chat(app, gw.testKey, { origin: OTHER_ORIGIN });
    expect(answer.status).toBe(200);
    expect(corsHeaders(answer)).toEqual([]);
  });

  test("answers carry the origin, Vary: Origin and every gw header they send as exposed: success, replay, stream", async () => {
    const first = await chat(app, gw.testKey, { "idempotency-key": "cors-1" });
    expect(first.status).toBe(200);
    expect(first.headers.get("vary")).toBe("Origin");
    expect(gwHeaders(first)).toEqual(expect.arrayContaining(["x-gw-model", "x-gw-provider", "x-gw-cache", "x-gw-request-id", "x-gw-api-version"]));
    expectExposed(first);
    const replay = await chat(app, gw.testKey, { "idempotency-key": "cors-1" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expectExposed(replay);
    const stream = await chat(app, gw.testKey, {}, { stream: true });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expectExposed(stream);
    expect(await stream.text()).toContain("data: [DONE]");
  });

  test("errors too: 401, 404 of an unknown path, 429 with Retry-After and x-ratelimit-*", async () => {
    expectExposed(await chat(app, "gw_test_not-a-key"));
    const unknown = await call(app, "/v1/no-such-path", { headers: { origin: APP_ORIGIN } });
    expect(unknown.status).toBe(404);
    expectExposed(unknown);
    const project = gw.newProject("cors-limited");
    const patched = await call(app, `/v1/admin/projects/${project}`, {
      method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ policy: { rate_limits: { rpm: 1 } } }),
    });
    expect(patched.status).toBe(200);
    const key = gw.key({ projectId: project });
    expectExposed(await chat(app, key));
    const refused = await chat(app, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(gwHeaders(refused)).toEqual(expect.arrayContaining(["retry-after", "x-ratelimit-remaining-requests"]));
    expectExposed(refused);
  });

  test("a draining gw's 503 carries them as well; paths outside /v1 never do", async () => {
    const lifecycle = new Lifecycle();
    lifecycle.draining = true;
    const refused = await chat(appWith(APP_ORIGIN, lifecycle), gw.testKey);
    expect(refused.status).toBe(503);
    expectExposed(refused);
    for (const path of ["/healthz", "/", "/v1x"]) {
      expect(corsHeaders(await call(app, path, { headers: { origin: APP_ORIGIN } }))).toEqual([]);
      expect(corsHeaders(await preflight(app, path, APP_ORIGIN))).toEqual([]);
    }
  });
});

describe("GW_CORS_ORIGINS=*", () => {
  test("any origin: Allow-Origin *, preflights 204, answers expose gw's headers", async () => {
    const app = appWith("*");
    const res = await preflight(app, "/v1/embeddings", OTHER_ORIGIN);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const answer = await chat(app, gw.testKey, { origin: OTHER_ORIGIN });
    expectExposed(answer, "*");
  });
});

describe("GW_CORS_ORIGINS is validated at start-up", () => {
  const parse = (value: string) => loadConfig({}, { GW_CORS_ORIGINS: value }).corsOrigins;
  test("origins, *, or nothing", () => {
    expect(parse("https://a.example.com,http://localhost:5173")).toEqual(["https://a.example.com", "http://localhost:5173"]);
    expect(parse(" https://a.example.com , ")).toEqual(["https://a.example.com"]);
    expect(parse("*")).toBe("*");
    expect(parse("")).toBeNull();
    expect(loadConfig({}, {}).corsOrigins).toBeNull();
  });

  test("anything else names the entry and the expected form", () => {
    for (const bad of ["https://a.example.com/", "https://a.example.com/app", "a.example.com", "ftp://a.example.com", "*,https://a.example.com", "https://A.example.com", "https://a.example.com:443"]) {
      expect(() => parse(bad)).toThrow(/GW_CORS_ORIGINS.*expected \* or origins such as https:\/\/app\.example\.com/);
    }
  });
});
