// The admin namespace against a real gw with its admin token: projects, keys (a created key works,
// a revoked one raises InvalidApiKeyError), credits; a project key never reaches the admin API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Gw, GwError, InvalidApiKeyError } from "../dist/index.js";
import { ADMIN_TOKEN, type TestGw, startTestGw } from "../../../test/helpers/test-gw.ts";

let gw: TestGw;
let ops: Gw;

beforeAll(async () => {
  gw = await startTestGw();
  ops = new Gw({ adminToken: ADMIN_TOKEN, baseURL: gw.url });
});
afterAll(() => gw.stop());

test("projects: create, get, list, update (policy merged key by key)", async () => {
  const project = await ops.admin.projects.create({ name: "node-client", policy: { cache: false } });
  expect(project).toMatchObject({ object: "project", name: "node-client", plan: "pro" });
  expect(project.id).toMatch(/^prj_/);
  expect((await ops.admin.projects.get(project.id)).name).toBe("node-client");
  expect((await ops.admin.projects.list()).data.map((p) => p.id)).toContain(project.id);
  const updated = await ops.admin.projects.update(project.id, { name: "renamed", policy: { semantic_cache: true } });
  expect(updated.name).toBe("renamed");
  expect(updated.policy).toMatchObject({ cache: false, semantic_cache: true });
});

test("keys: a created key answers calls; listed without its secret; revoked, it raises InvalidApiKeyError", async () => {
  const project = await ops.admin.projects.create({ name: "keys" });
  const created = await ops.admin.keys.create(project.id, { mode: "test", scopes: ["chat", "models", "requests"] });
  expect(created.key).toMatch(/^gw_test_/);
  const user = new Gw({ apiKey: created.key, baseURL: gw.url, maxRetries: 0 });
  expect((await user.chat.completions.create({ messages: [{ role: "user", content: "Hi" }] })).gw.test).toBe(true);

  const listed = await ops.admin.keys.list(project.id);
  expect(listed.data.map((k) => k.id)).toEqual([created.id]);
  expect(listed.data[0]?.key).toBeUndefined();

  expect(await ops.admin.keys.revoke(created.id)).toMatchObject({ id: created.id, revoked: true });
  expect(await user.models.list().then(() => null, (e: unknown) => e)).toBeInstanceOf(InvalidApiKeyError);
});

test("credits.add answers the new balance of a prepaid project", async () => {
  const project = await ops.admin.projects.create({ name: "prepaid", billing: { mode: "prepaid" } });
  expect(await ops.admin.credits.add(project.id, { amount: 25 })).toEqual({ object: "credits", balance: 25 });
  expect((await ops.admin.credits.add(project.id, { amount: 5 })).balance).toBe(30);
});

test("a project key or a wrong token gets a 401 from the admin API", async () => {
  for (const token of [gw.testKey, "not-the-token"]) {
    const err = await new Gw({ adminToken: token, baseURL: gw.url, maxRetries: 0 }).admin.projects.list().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(GwError);
    expect((err as GwError).status).toBe(401);
  }
});
