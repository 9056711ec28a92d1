// Dashboard sessions through a real gw (docs/dashboard.md "Sign-in and roles"): sign-in by the admin
// token or a key with `requests`, the cookie's attributes, CSRF on non-GET, sign-out, 12 h expiry,
// revocation seen at the next call, sign-in throttling, and sessions that survive a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/lib/clock.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { startServer } from "../../src/server.ts";
import { admin, expectError, ok } from "../helpers/admin-api.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

type Json = Record<string, unknown>;

const origin = (gw: { url: string }) => gw.url.replace(/\/v1$/, "");

async function signIn(gw: { url: string }, token: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin(gw)}/dashboard/api/session`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ token }) });
}

const cookieOf = (res: Response): string => (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

function call(gw: { url: string }, method: string, path: string, cookie: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin(gw)}/dashboard/api${path}`, { method, headers: { cookie, ...headers } });
}

describe("dashboard sessions", () => {
  let gw: TestGw;
  const clock = new ManualClock();
  beforeAll(async () => {
    gw = await startTestGw({}, { clock });
  });
  afterAll(() => gw.stop());

  test("the admin token signs in as operator: Session body, HttpOnly SameSite=Strict cookie, audited without the token", async () => {
    const res = await signIn(gw, ADMIN_TOKEN);
    const body = await ok(res);
    expect(body).toMatchObject({ object: "dashboard.session", role: "operator", project_id: null, key_id: null, email: null });
    expect(body.scopes).toEqual(expect.arrayContaining(["requests", "cache"]));
    expect(typeof body.csrf_token).toBe("string");
    expect(Date.parse(String(body.expires_at)) - clock.now()).toBe(12 * 3600 * 1000);
    const setCookie = res.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^gw_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    const again = await ok(await call(gw, "GET", "/session", cookieOf(res)));
    expect(again).toEqual(body);
    const entry = (await gw.deps.audit.list({ limit: 1 })).data[0];
    expect(entry).toMatchObject({ action: "session.sign_in", actorType: "admin_token", outcome: "success", sourceIp: "127.0.0.1" });
    const stored = JSON.stringify(gw.deps.db.query("SELECT * FROM audit_log").all()) + JSON.stringify(gw.deps.db.query("SELECT * FROM dashboard_sessions").all());
    expect(stored).not.toContain(ADMIN_TOKEN);
    expect(stored).not.toContain(cookieOf(res).slice("gw_session=".length));
  });

  test("a key with scope requests signs in to its project; without it 403; anything else 401, audited as failures", async () => {
    const key = gw.key({ scopes: ["chat", "requests"], mode: "live" });
    const body = await ok(await signIn(gw, key));
    expect(body).toMatchObject({ role: "project", project_id: gw.projectId, scopes: ["chat", "requests"], email: null });
    expect(String(body.key_id)).toMatch(/^key_/);
    const noScope = gw.key({ scopes: ["chat"] });
    const denied = await expectError(await signIn(gw, noScope), 403, "permission_denied");
    expect(String(denied.message)).toContain("'requests'");
    const wrong = await expectError(await signIn(gw, "gw_live_" + "x".repeat(40)), 401, "invalid_api_key");
    expect(String(wrong.message)).toStartWith("Sign-in failed");
    await expectError(await signIn(gw, "not-a-token"), 401, "invalid_api_key");
    const failures = (await gw.deps.audit.list({ limit: 3 })).data;
    expect(failures.map((e) => e.action)).toEqual(["session.sign_in_failed", "session.sign_in_failed", "session.sign_in_failed"]);
    expect(failures.map((e) => e.status)).toEqual([401, 401, 403]);
    expect(failures[2]?.projectId).toBe(gw.projectId);
    expect(JSON.stringify(gw.deps.db.query("SELECT * FROM audit_log").all())).not.toContain(noScope);
  });

  test("non-GET calls need the CSRF header; sign-out clears the cookie and ends the session", async () => {
    const res = await signIn(gw, ADMIN_TOKEN);
    const { csrf_token } = (await res.json()) as { csrf_token: string };
    const cookie = cookieOf(res);
    const missing = await expectError(await call(gw, "DELETE", "/session", cookie), 403, "permission_denied");
    expect(String(missing.message)).toContain("CSRF token missing or wrong");
    await expectError(await call(gw, "DELETE", "/session", cookie, { "x-gw-csrf": csrf_token.slice(1) + "A" }), 403, "permission_denied");
    const out = await call(gw, "DELETE", "/session", cookie, { "x-gw-csrf": csrf_token });
    expect(await ok(out)).toEqual({ signed_out: true });
    expect(out.headers.get("set-cookie")).toBe("gw_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
    await expectError(await call(gw, "GET", "/session", cookie), 401, "invalid_api_key");
    expect((await gw.deps.audit.list({ limit: 1 })).data[0]).toMatchObject({ action: "session.sign_out", actorType: "operator_session" });
  });

  test("a session ends 12 h after sign-in", async () => {
    const cookie = cookieOf(await signIn(gw, ADMIN_TOKEN));
    clock.advance(12 * 3600 * 1000 - 1000);
    await ok(await call(gw, "GET", "/session", cookie));
    clock.advance(1000);
    await expectError(await call(gw, "GET", "/session", cookie), 401, "invalid_api_key");
  });

  test("revoking the key ends its session at the next call", async () => {
    const key = gw.key({ scopes: ["requests"] });
    const res = await signIn(gw, key);
    const { key_id } = (await res.json()) as { key_id: string };
    await ok(await call(gw, "GET", "/session", cookieOf(res)));
    await ok(await admin(gw, "DELETE", `/keys/${key_id}`));
    await expectError(await call(gw, "GET", "/session", cookieOf(res)), 401, "invalid_api_key");
  });

  test("a project session cannot name another project; the operator may, but not an unknown one", async () => {
    const other = gw.newProject("other");
    const project = cookieOf(await signIn(gw, gw.key({ scopes: ["requests"] })));
    const operator = cookieOf(await signIn(gw, ADMIN_TOKEN));
    await expectError(await call(gw, "GET", `/audit?project=${other}`, project), 404, "not_found");
    await ok(await call(gw, "GET", `/audit?project=${other}`, operator));
    await expectError(await call(gw, "GET", "/audit?project=prj_nope", operator), 404, "not_found");
  });

  test("a key's and its project's IP allowlists hold for the dashboard: at sign-in and at every call", async () => {
    const fenced = String((await ok(await admin(gw, "POST", `/projects/${gw.projectId}/keys`, { scopes: ["requests"], ip_allowlist: ["10.0.0.0/8"] }), 201)).key);
    const refused = await expectError(await signIn(gw, fenced), 403, "permission_denied");
    expect(String(refused.message)).toContain("ip_allowlist");
    const project = gw.newProject("fenced");
    const res = await signIn(gw, gw.key({ projectId: project, scopes: ["requests"] }));
    await ok(await call(gw, "GET", "/session", cookieOf(res)));
    await ok(await admin(gw, "PATCH", `/projects/${project}`, { policy: { ip_allowlist: ["10.0.0.0/8"] } }));
    await expectError(await call(gw, "GET", "/session", cookieOf(res)), 403, "permission_denied");
  });

  test("past 10 failed sign-ins a minute an address gets 429 with Retry-After, the right token too", async () => {
    clock.advance(61_000); // a fresh window: the failures above were in an earlier one
    for (let i = 0; i < 10; i++) await expectError(await signIn(gw, `wrong-${i}`), 401, "invalid_api_key");
    const locked = await signIn(gw, ADMIN_TOKEN);
    await expectError(locked, 429, "rate_limited");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(60_000);
    await ok(await signIn(gw, ADMIN_TOKEN));
  });
});

describe("dashboard sessions behind a proxy and across a restart", () => {
  test("Secure only when the request came over TLS through a trusted proxy", async () => {
    const trusted = await startTestGw({ GW_TRUSTED_PROXIES: "127.0.0.1/32" });
    const untrusted = await startTestGw();
    try {
      const secure = await signIn(trusted, ADMIN_TOKEN, { "x-forwarded-proto": "https" });
      expect(secure.headers.get("set-cookie")).toEndWith("; Secure");
      const plain = await signIn(untrusted, ADMIN_TOKEN, { "x-forwarded-proto": "https" });
      expect(plain.headers.get("set-cookie")).not.toContain("Secure");
    } finally {
      await trusted.stop();
      await untrusted.stop();
    }
  });

  test("an acknowledged sign-in survives a restart of gw over the same data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gw-session-restart-"));
    const boot = () => {
      const config = loadConfig({ port: "0", data: dataDir }, { GW_ADMIN_TOKEN: ADMIN_TOKEN, GW_STORAGE_RESERVE_MB: "1" });
      return startServer(config, { deps: buildDeps(config, { logger: createLogger("silent") }), quiet: true });
    };
    try {
      const first = boot();
      const res = await signIn(first, ADMIN_TOKEN);
      const body = (await res.json()) as Json;
      await first.stop();
      const second = boot();
      try {
        expect(await ok(await call(second, "GET", "/session", cookieOf(res)))).toEqual(body);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
