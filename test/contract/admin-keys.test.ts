// POST /admin/projects/{id}/keys and DELETE /admin/keys/{key_id} (docs/api.md "Admin API",
// "Authentication"): live and test keys, scopes, revocation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { admin, createProject, expectError, ISO, ok, type Json } from "../helpers/admin-api.ts";
import { get, startTestGw, type TestGw } from "../helpers/test-gw.ts";

describe('admin keys (docs/api.md "Admin API", "Authentication")', () => {
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
