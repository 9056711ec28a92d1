// The admin gate (docs/api.md "Admin API"): every /v1/admin endpoint only with GW_ADMIN_TOKEN and
// only for that token; absent (404) without it. Each endpoint's own contract: test/contract/admin-*.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, createProject, expectError, ok, type Json } from "../helpers/admin-api.ts";
import { ADMIN_TOKEN, get, startTestGw, type TestGw } from "../helpers/test-gw.ts";

describe('admin authentication (docs/api.md "Admin API")', () => {
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

describe('admin API disabled without GW_ADMIN_TOKEN (docs/api.md "Admin API")', () => {
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
