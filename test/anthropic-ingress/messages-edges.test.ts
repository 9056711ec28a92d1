// Edges of the Anthropic ingress (issue 20 item 7): x-api-key on gw's other endpoints and its
// precedence, a body over the limit (request_too_large), a browser's preflight and answer under
// GW_CORS_ORIGINS, and a key's IP allowlist refusing a /v1/messages request as a logged 403.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGw } from "../helpers/start-gw.ts";
import { ADMIN_TOKEN, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let stop: () => Promise<void>;
const ORIGIN = "https://app.example.com";

beforeAll(async () => {
  ({ gw, stop } = await startGw({ env: { GW_CORS_ORIGINS: ORIGIN } }));
});
afterAll(() => stop());

const hello = { model: "gw-auto", max_tokens: 16, messages: [{ role: "user", content: "hi" }] };
const postMessages = (headers: Record<string, string>, body: string = JSON.stringify(hello)) =>
  fetch(`${gw.url}/messages`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

describe("x-api-key", () => {
  test("is read on gw's other endpoints too (GET /v1/models)", async () => {
    const res = await fetch(`${gw.url}/models`, { headers: { "x-api-key": gw.testKey } });
    expect(res.status).toBe(200);
  });

  test("Authorization wins when both are sent", async () => {
    const res = await postMessages({ authorization: "Bearer gw_test_wrong", "x-api-key": gw.testKey });
    expect(res.status).toBe(401);
    const good = await postMessages({ authorization: `Bearer ${gw.testKey}`, "x-api-key": "gw_test_wrong" });
    expect(good.status).toBe(200);
  });
});

test("a body over the size limit is 413 request_too_large", async () => {
  const big = JSON.stringify({ ...hello, messages: [{ role: "user", content: "x".repeat(11 * 1024 * 1024) }] });
  const res = await postMessages({ "x-api-key": gw.testKey }, big);
  expect(res.status).toBe(413);
  const body = (await res.json()) as { type: string; error: { type: string } };
  expect(body).toMatchObject({ type: "error", error: { type: "request_too_large" } });
});

describe("CORS", () => {
  test("a preflight for the Anthropic SDK's headers is answered 204", async () => {
    const res = await fetch(`${gw.url}/messages`, {
      method: "OPTIONS",
      headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    const allowed = res.headers.get("access-control-allow-headers")!;
    for (const h of ["x-api-key", "anthropic-version", "anthropic-dangerous-direct-browser-access"]) expect(allowed).toContain(h);
  });

  test("answers and errors carry the origin and expose request-id", async () => {
    for (const key of [gw.testKey, "gw_test_wrong"]) {
      const res = await postMessages({ origin: ORIGIN, "x-api-key": key });
      await res.text();
      expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(res.headers.get("access-control-expose-headers")).toContain("request-id");
    }
  });
});

test("a key's IP allowlist refuses a /v1/messages request as a logged 403 permission_error", async () => {
  const projectId = gw.newProject("allowlisted");
  const patch = await fetch(`${gw.url}/admin/projects/${projectId}`, {
    method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ policy: { ip_allowlist: ["203.0.113.0/24"] } }),
  });
  expect(patch.status).toBe(200);
  const key = gw.key({ projectId, scopes: ["chat", "requests"] });
  const res = await postMessages({ "x-api-key": key });
  expect(res.status).toBe(403);
  const body = (await res.json()) as { error: { type: string }; request_id: string };
  expect(body.error.type).toBe("permission_error");
  await gw.drain();
  const row = gw.deps.repos.requests.get(projectId, body.request_id);
  expect(row?.endpoint).toBe("messages");
  expect(row?.status).toBe(403);
});
