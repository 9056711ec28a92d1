// Issue 15 item 1 (docs/security.md "Boundaries"): the project's and the key's IP allowlists hold on
// every project-key endpoint and on idempotent replays, and a replay goes only to the key that
// stored it. Through the real server: the caller's address comes from X-Forwarded-For, believed
// because the peer (127.0.0.1) is a trusted proxy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { API_VERSION } from "../../src/config/constants.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw({ GW_TRUSTED_PROXIES: "127.0.0.1/32, ::1/128" });
});
afterAll(async () => {
  await gw.stop();
});

const ALLOWED = "203.0.113.7";
const FORBIDDEN = "198.51.100.1";
const SCOPES = ["chat", "embeddings", "models", "cache", "requests"];

const admin = (method: string, path: string, body: unknown) =>
  fetch(`${gw.url}/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });

async function keyFor(project: string, keyList?: string[]): Promise<string> {
  const res = await admin("POST", `/projects/${project}/keys`, { mode: "test", scopes: SCOPES, ...(keyList ? { ip_allowlist: keyList } : {}) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

async function guardedProject(): Promise<string> {
  const project = gw.newProject("guarded");
  expect((await admin("PATCH", `/projects/${project}`, { policy: { ip_allowlist: ["203.0.113.0/24"] } })).status).toBe(200);
  return project;
}

function call(key: string, from: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "x-forwarded-for": from, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function expectForbidden(res: Response, what: string): Promise<void> {
  expect({ what, status: res.status }).toEqual({ what, status: 403 });
  expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
  expect(res.headers.get("idempotent-replayed")).toBeNull();
  const { error } = (await res.json()) as { error: { code: string; category: string; message: string } };
  expect(error).toMatchObject({ code: "permission_denied", category: "PERMISSION_DENIED" });
  expect(error.message).toContain("IP address");
}

const chatBody = { messages: [{ role: "user", content: "hello boundary" }] };

/** Every project-key endpoint, as (name, method, path, body). */
function endpoints(requestId: string): Array<[string, string, string, unknown]> {
  return [
    ["GET /requests", "GET", "/requests", undefined],
    ["GET /requests/{id}", "GET", `/requests/${requestId}`, undefined],
    ["GET /metrics", "GET", "/metrics", undefined],
    ["POST /requests/{id}/feedback", "POST", `/requests/${requestId}/feedback`, { rating: 1 }],
    ["POST /cache/invalidate", "POST", "/cache/invalidate", { all: true }],
    ["GET /models", "GET", "/models", undefined],
    ["POST /chat/completions", "POST", "/chat/completions", chatBody],
    ["POST /responses", "POST", "/responses", { input: "hello boundary" }],
    ["POST /embeddings", "POST", "/embeddings", { input: "hello boundary" }],
  ];
}

describe("allowlists on every project-key endpoint", () => {
  test("from an allowed address every endpoint answers; from a forbidden one each answers 403", async () => {
    const key = await keyFor(await guardedProject());
    const first = await call(key, ALLOWED, "POST", "/chat/completions", chatBody);
    expect(first.status).toBe(200);
    const requestId = first.headers.get("x-gw-request-id")!;
    await gw.drain();
    for (const [name, method, path, body] of endpoints(requestId)) {
      const ok = await call(key, ALLOWED, method, path, body);
      expect({ name, status: ok.status }).toEqual({ name, status: ok.status === 202 ? 202 : 200 });
      await expectForbidden(await call(key, FORBIDDEN, method, path, body), name);
    }
  });

  test("a key's own allowlist applies on the read endpoints too", async () => {
    const key = await keyFor(await guardedProject(), ["203.0.113.10/32"]);
    expect((await call(key, "203.0.113.10", "GET", "/metrics")).status).toBe(200);
    await expectForbidden(await call(key, "203.0.113.11", "GET", "/metrics"), "key list on /metrics");
    await expectForbidden(await call(key, "203.0.113.11", "GET", "/requests"), "key list on /requests");
  });

  test("a project without allowlists is untouched", async () => {
    const key = await keyFor(gw.newProject("open"));
    expect((await call(key, FORBIDDEN, "GET", "/requests")).status).toBe(200);
  });
});

describe("idempotent replays", () => {
  test("a forbidden address gets 403 for a stored key, never the replay nor a 422 that confirms the key", async () => {
    const key = await keyFor(await guardedProject());
    const headers = { "idempotency-key": "boundary-replay-1" };
    const stored = await call(key, ALLOWED, "POST", "/chat/completions", chatBody, headers);
    expect(stored.status).toBe(200);
    const again = await call(key, ALLOWED, "POST", "/chat/completions", chatBody, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    await expectForbidden(await call(key, FORBIDDEN, "POST", "/chat/completions", chatBody, headers), "same body replay");
    await expectForbidden(await call(key, FORBIDDEN, "POST", "/chat/completions", { messages: [{ role: "user", content: "other" }] }, headers), "other body");
    const emb = { "idempotency-key": "boundary-replay-2" };
    expect((await call(key, ALLOWED, "POST", "/embeddings", { input: "x" }, emb)).status).toBe(200);
    await expectForbidden(await call(key, FORBIDDEN, "POST", "/embeddings", { input: "x" }, emb), "embeddings replay");
  });

  test("a replay is bound to the key that stored it: another key of the project gets 422", async () => {
    const project = gw.newProject("two keys");
    const [a, b] = [await keyFor(project), await keyFor(project)];
    const headers = { "idempotency-key": "boundary-bound-1" };
    expect((await call(a, ALLOWED, "POST", "/chat/completions", chatBody, headers)).status).toBe(200);
    const other = await call(b, ALLOWED, "POST", "/chat/completions", chatBody, headers);
    expect(other.status).toBe(422);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_mismatch");
    const own = await call(a, ALLOWED, "POST", "/chat/completions", chatBody, headers);
    expect(own.headers.get("idempotent-replayed")).toBe("true");
  });
});
