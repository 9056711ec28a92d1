// The admin API (contracts.md 3): projects, policy, keys and credits under /v1/admin, only with
// GW_ADMIN_TOKEN and only for that token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, get, startTestGw, type TestGw } from "../helpers/test-gw.ts";

type Json = Record<string, unknown>;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function admin(gw: TestGw, method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(`${gw.url}/admin${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function ok(res: Response, status = 200): Promise<Json> {
  const body = (await res.json()) as Json;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

async function expectError(res: Response, status: number, code: string, param?: string): Promise<Json> {
  expect(res.status).toBe(status);
  const { error } = (await res.json()) as { error: Json };
  expect(error.code).toBe(code);
  if (param !== undefined) expect(error.param).toBe(param);
  expect(typeof error.message).toBe("string");
  return error;
}

async function createProject(gw: TestGw, body: Json = { name: "acme" }): Promise<Json> {
  return ok(await admin(gw, "POST", "/projects", body), 201);
}

describe("admin projects (contracts.md 3)", () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw()));
  afterAll(() => gw.stop());

  test("POST /admin/projects: 201, the project object with the defaults", async () => {
    const p = await createProject(gw, { name: "acme" });
    expect(p).toMatchObject({
      object: "project", name: "acme", plan: "pro",
      billing: { mode: "postpaid", balance: 0, credit_limit: null }, policy: {},
    });
    expect(p.id).toMatch(/^prj_[0-9a-z]+$/);
    expect(p.created_at).toMatch(ISO);
    expect(Object.keys(p).sort()).toEqual(["billing", "created_at", "id", "name", "object", "plan", "policy"]);
  });

  test("admin answers carry X-Gw-Api-Version and X-Gw-Request-Id, errors included (contracts.md 2)", async () => {
    for (const res of [await admin(gw, "POST", "/projects", { name: "hdr" }), await admin(gw, "GET", "/projects/prj_nope"), await admin(gw, "GET", "/projects/prj_nope", undefined, null)]) {
      expect(res.headers.get("x-gw-api-version")).toBe("2026-10-04");
      expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
      await res.body?.cancel();
    }
  });

  test("POST with plan, billing and policy keeps them", async () => {
    const p = await createProject(gw, {
      name: "prepaid", plan: "business", billing: { mode: "prepaid" }, policy: { cache: false, trace_sample_rate: 0.1 },
    });
    expect(p).toMatchObject({
      plan: "business", billing: { mode: "prepaid", balance: 0, credit_limit: null }, policy: { cache: false, trace_sample_rate: 0.1 },
    });
  });

  test("POST with an invalid body: 400 invalid_request naming the param", async () => {
    await expectError(await admin(gw, "POST", "/projects", {}), 400, "invalid_request", "name");
    await expectError(await admin(gw, "POST", "/projects", { name: "x", plan: "gold" }), 400, "invalid_request", "plan");
    await expectError(await admin(gw, "POST", "/projects", { name: "x", policy: { retention: "forever" } }), 400, "invalid_request", "policy.retention");
  });

  test("GET /admin/projects/{id} returns the same object; an unknown id is 404 not_found", async () => {
    const created = await createProject(gw);
    expect(await ok(await admin(gw, "GET", `/projects/${created.id}`))).toEqual(created);
    await expectError(await admin(gw, "GET", "/projects/prj_nope"), 404, "not_found");
  });

  test("PATCH merges the policy key by key; null unsets a key; other fields replace", async () => {
    const p = await createProject(gw, { name: "merge", policy: { cache: false, semantic_mode: "aggressive" } });
    const a = await ok(await admin(gw, "PATCH", `/projects/${p.id}`, { policy: { semantic_cache: true, budget_action: "warn" } }));
    expect(a.policy).toEqual({ cache: false, semantic_mode: "aggressive", semantic_cache: true, budget_action: "warn" });
    const b = await ok(await admin(gw, "PATCH", `/projects/${p.id}`, { name: "renamed", plan: "free", policy: { cache: null, semantic_mode: "conservative" } }));
    expect(b).toMatchObject({ name: "renamed", plan: "free" });
    expect(b.policy).toEqual({ semantic_mode: "conservative", semantic_cache: true, budget_action: "warn" });
    // Kept, as GET shows.
    expect(await ok(await admin(gw, "GET", `/projects/${p.id}`))).toEqual(b);
    // A PATCH without policy leaves it alone.
    const c = await ok(await admin(gw, "PATCH", `/projects/${p.id}`, { billing: { credit_limit: 50 } }));
    expect(c.policy).toEqual(b.policy);
    expect(c.billing).toEqual({ mode: "postpaid", balance: 0, credit_limit: 50 });
  });

  test("PATCH with invalid policy values or unknown keys: 400 naming the param, nothing changed", async () => {
    const p = await createProject(gw, { name: "strict", policy: { semantic_mode: "balanced" } });
    const cases: Array<[Json, string]> = [
      [{ policy: { semantic_mode: "wild" } }, "policy.semantic_mode"],
      [{ policy: { trace_sample_rate: 0.3 } }, "policy.trace_sample_rate"],
      [{ policy: { no_such_setting: true } }, "policy.no_such_setting"],
      [{ policy: { budget_action: "explode" } }, "policy.budget_action"],
      [{ policy: { cache: "yes" } }, "policy.cache"],
      [{ plan: "platinum" }, "plan"],
      [{ unknown_field: 1 }, "unknown_field"],
    ];
    for (const [body, param] of cases) {
      await expectError(await admin(gw, "PATCH", `/projects/${p.id}`, body), 400, "invalid_request", param);
    }
    await expectError(await admin(gw, "PATCH", `/projects/${p.id}`, { policy: "off" }), 400, "invalid_request", "policy");
    expect((await ok(await admin(gw, "GET", `/projects/${p.id}`))).policy).toEqual({ semantic_mode: "balanced" });
  });

  test("PATCH on an unknown project: 404 not_found", async () => {
    await expectError(await admin(gw, "PATCH", "/projects/prj_nope", { name: "x" }), 404, "not_found");
  });
});

describe("admin keys (contracts.md 3, gateway-api.md 5)", () => {
  let gw: TestGw;
  let project: Json;
  beforeAll(async () => {
    gw = await startTestGw();
    project = await createProject(gw, { name: "keys" });
  });
  afterAll(() => gw.stop());

  test("POST keys: 201, a gw_live_ key with the default scopes that works on /v1/models", async () => {
    const k = await ok(await admin(gw, "POST", `/projects/${project.id}/keys`, {}), 201);
    expect(k).toMatchObject({ object: "key", mode: "live", scopes: ["chat", "embeddings", "models", "cache"] });
    expect(k.id).toMatch(/^key_[0-9a-z]+$/);
    expect(k.key).toMatch(/^gw_live_[0-9a-z]+$/);
    expect(k.created_at).toMatch(ISO);
    expect((await get(`${gw.url}/models`, k.key as string)).status).toBe(200);
    // `requests` is not a default scope.
    expect((await get(`${gw.url}/requests`, k.key as string)).status).toBe(403);
  });

  test("mode test gives a gw_test_ key; explicit scopes are kept", async () => {
    const k = await ok(await admin(gw, "POST", `/projects/${project.id}/keys`, { mode: "test", scopes: ["models", "requests"], name: "ci" }), 201);
    expect(k).toMatchObject({ mode: "test", scopes: ["models", "requests"] });
    expect(k.key).toMatch(/^gw_test_[0-9a-z]+$/);
    expect((await get(`${gw.url}/models`, k.key as string)).status).toBe(200);
    expect((await get(`${gw.url}/requests`, k.key as string)).status).toBe(200);
    const chat = await fetch(`${gw.url}/chat/completions`, {
      method: "POST", headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(403);
  });

  test("each key is a new secret", async () => {
    const a = await ok(await admin(gw, "POST", `/projects/${project.id}/keys`, {}), 201);
    const b = await ok(await admin(gw, "POST", `/projects/${project.id}/keys`, {}), 201);
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
  });

  test("a bad scope, empty scopes or a bad mode: 400 invalid_request", async () => {
    const bad: Json[] = [{ scopes: ["chat", "admin"] }, { scopes: [] }, { scopes: "chat" }, { mode: "prod" }];
    for (const body of bad) {
      const error = await expectError(await admin(gw, "POST", `/projects/${project.id}/keys`, body), 400, "invalid_request");
      expect(String(error.param)).toMatch(/^(scopes|mode)/);
    }
  });

  test("keys for an unknown project: 404 not_found", async () => {
    await expectError(await admin(gw, "POST", "/projects/prj_nope/keys", {}), 404, "not_found");
  });

  test("DELETE /admin/keys/{id}: revoked, and the key answers 401 from then on", async () => {
    const k = await ok(await admin(gw, "POST", `/projects/${project.id}/keys`, {}), 201);
    expect((await get(`${gw.url}/models`, k.key as string)).status).toBe(200);
    const revoked = await ok(await admin(gw, "DELETE", `/keys/${k.id}`));
    expect(revoked).toEqual({ object: "key", id: k.id, revoked: true });
    const after = await get(`${gw.url}/models`, k.key as string);
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: Json }).error.code).toBe("invalid_api_key");
    // Revoking again is harmless; an unknown key is 404.
    expect(await ok(await admin(gw, "DELETE", `/keys/${k.id}`))).toMatchObject({ revoked: true });
    await expectError(await admin(gw, "DELETE", "/keys/key_nope"), 404, "not_found");
  });
});

describe("admin credits (contracts.md 3)", () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw()));
  afterAll(() => gw.stop());

  test("credits add up over calls and show in the project's balance", async () => {
    const p = await createProject(gw, { name: "wallet", billing: { mode: "prepaid" } });
    expect(await ok(await admin(gw, "POST", `/projects/${p.id}/credits`, { amount: 10 }))).toEqual({ object: "credits", balance: 10 });
    expect(await ok(await admin(gw, "POST", `/projects/${p.id}/credits`, { amount: 2.5 }))).toEqual({ object: "credits", balance: 12.5 });
    expect(((await ok(await admin(gw, "GET", `/projects/${p.id}`))).billing as Json).balance).toBe(12.5);
  });

  test("amount 0, negative or missing: 400 naming 'amount'; balance unchanged", async () => {
    const p = await createProject(gw, { name: "wallet2" });
    for (const body of [{ amount: 0 }, { amount: -5 }, { amount: "10" }, {}]) {
      await expectError(await admin(gw, "POST", `/projects/${p.id}/credits`, body), 400, "invalid_request", "amount");
    }
    expect(((await ok(await admin(gw, "GET", `/projects/${p.id}`))).billing as Json).balance).toBe(0);
  });

  test("credits for an unknown project: 404 not_found", async () => {
    await expectError(await admin(gw, "POST", "/projects/prj_nope/credits", { amount: 1 }), 404, "not_found");
  });
});

describe("admin authentication (contracts.md 3)", () => {
  let gw: TestGw;
  let projectId: string;
  beforeAll(async () => {
    gw = await startTestGw();
    projectId = (await createProject(gw)).id as string;
  });
  afterAll(() => gw.stop());

  const calls = (id: string): Array<[string, string, unknown]> => [
    ["POST", "/projects", { name: "x" }],
    ["GET", `/projects/${id}`, undefined],
    ["PATCH", `/projects/${id}`, { name: "x" }],
    ["POST", `/projects/${id}/keys`, {}],
    ["DELETE", "/keys/key_nope", undefined],
    ["POST", `/projects/${id}/credits`, { amount: 1 }],
  ];

  test("no token, a wrong token, or a project key: 401 invalid_api_key on every endpoint", async () => {
    for (const token of [null, "wrong-token", `${ADMIN_TOKEN}x`, gw.testKey]) {
      for (const [method, path, body] of calls(projectId)) {
        const error = await expectError(await admin(gw, method, path, body, token), 401, "invalid_api_key");
        expect(error.type).toBe("authentication_error");
      }
    }
    // Nothing was changed by the refused calls.
    const p = await ok(await admin(gw, "GET", `/projects/${projectId}`));
    expect(p.name).toBe("acme");
    expect((p.billing as Json).balance).toBe(0);
  });

  test("a Basic scheme with the right token is refused too", async () => {
    const res = await fetch(`${gw.url}/admin/projects/${projectId}`, { headers: { authorization: `Basic ${ADMIN_TOKEN}` } });
    await expectError(res, 401, "invalid_api_key");
  });
});

describe("admin API disabled without GW_ADMIN_TOKEN (contracts.md 3)", () => {
  let gw: TestGw;
  beforeAll(async () => (gw = await startTestGw({ GW_ADMIN_TOKEN: "" })));
  afterAll(() => gw.stop());

  test("every admin path answers 404, whatever the token", async () => {
    expect(gw.deps.config.adminToken).toBeNull();
    for (const token of [ADMIN_TOKEN, null]) {
      await expectError(await admin(gw, "POST", "/projects", { name: "x" }, token), 404, "not_found");
      await expectError(await admin(gw, "GET", `/projects/${gw.projectId}`, undefined, token), 404, "not_found");
      await expectError(await admin(gw, "POST", `/projects/${gw.projectId}/credits`, { amount: 1 }, token), 404, "not_found");
    }
    // The rest of the API still works.
    expect((await get(`${gw.url}/models`, gw.testKey)).status).toBe(200);
  });
});
