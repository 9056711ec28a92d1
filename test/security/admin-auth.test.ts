// Issue 15 item 8 (docs/security.md "Admin"): start-up refuses a weak admin token; failed admin
// authentications are logged with their source (never the token) and limited per address.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN_MIN_LENGTH, loadConfig } from "../../src/config/env.ts";
import type { Deps } from "../../src/pipeline/deps.ts";
import { GwError } from "../../src/errors/gw-error.ts";
import { ADMIN_FAILURES_PER_WINDOW, AdminGate } from "../../src/http/admin/admin-gate.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const STRONG = "9f2c4e1a7b3d5f60819a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70";

describe("GW_ADMIN_TOKEN strength at start-up", () => {
  const load = (token: string) => loadConfig({ port: "0", data: "/tmp/gw-admin-token-test" }, { GW_ADMIN_TOKEN: token });
  test("a short or repetitive token is refused with how to make one; a strong one is kept", () => {
    for (const weak of ["change-me", "x".repeat(ADMIN_TOKEN_MIN_LENGTH - 1), "test-admin-token-0123456789", "ab".repeat(32)]) {
      expect(() => load(weak)).toThrow("openssl rand -hex 32");
    }
    expect(load(STRONG).adminToken).toBe(STRONG);
    expect(load("").adminToken).toBeNull(); // unset: the admin API is off
    expect(ADMIN_TOKEN.length).toBeGreaterThanOrEqual(ADMIN_TOKEN_MIN_LENGTH);
  });
});

describe("the admin gate", () => {
  test("each failure is a warn line with the source address and never the token; the limit is per address", () => {
    const lines: string[] = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
    let now = 1_000_000;
    const deps = { logger, config: { trustedProxies: [] } } as unknown as Deps;
    const gate = new AdminGate(deps, STRONG, () => now);
    const server = (address: string) => ({ requestIP: () => ({ address }) });
    const req = (token: string) => new Request("http://localhost/v1/admin/projects", { headers: { authorization: `Bearer ${token}` } });
    const attempt = (token: string, from: string): string => {
      try {
        gate.check(req(token), server(from));
        return "ok";
      } catch (err) {
        return (err as GwError).code;
      }
    };
    const guess = "guess-0123456789-0123456789-0123456789";
    expect(attempt(guess, "198.51.100.7")).toBe("invalid_api_key");
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 40, source_ip: "198.51.100.7", msg: "admin authentication failed", failures_in_window: 1 });
    expect(lines[0]).not.toContain(guess);
    expect(lines[0]).not.toContain(STRONG);

    for (let i = 1; i < ADMIN_FAILURES_PER_WINDOW; i++) expect(attempt(`${guess}${i}`, "198.51.100.7")).toBe("invalid_api_key");
    // Locked out: even the right token is refused, so 429 against 200 answers no guess.
    expect(attempt(guess, "198.51.100.7")).toBe("rate_limited");
    expect(attempt(STRONG, "198.51.100.7")).toBe("rate_limited");
    // Another address is unaffected.
    expect(attempt(STRONG, "203.0.113.9")).toBe("ok");
    // The next window starts afresh.
    now += 60_000;
    expect(attempt(STRONG, "198.51.100.7")).toBe("ok");
  });
});

describe("through the server", () => {
  let gw: TestGw;
  beforeAll(async () => {
    gw = await startTestGw({ GW_TRUSTED_PROXIES: "127.0.0.1/32, ::1/128" });
  });
  afterAll(() => gw.stop());

  const call = (token: string, from: string) =>
    fetch(`${gw.url}/admin/projects/${gw.projectId}`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": from } });

  test("past the limit an address gets 429 with Retry-After in the envelope; others still get in", async () => {
    for (let i = 0; i < ADMIN_FAILURES_PER_WINDOW; i++) expect((await call(`wrong-${i}`, "198.51.100.20")).status).toBe(401);
    const limited = await call(ADMIN_TOKEN, "198.51.100.20");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-gw-api-version")).not.toBeNull();
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    const prom = await fetch(`${gw.url}/admin/metrics/prometheus`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "x-forwarded-for": "198.51.100.20" } });
    expect(prom.status).toBe(429);
    expect((await call(ADMIN_TOKEN, "198.51.100.21")).status).toBe(200);
  });
});
