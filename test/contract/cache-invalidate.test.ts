// POST /v1/cache/invalidate through the real server (docs/api.md "Cache invalidation", "Errors"):
// deleted counts per project, 422 `{message, errors}` for bad input, scope `cache`.
// Entries are seeded through deps.answers (the store the pipeline writes to).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NewCachedAnswer } from "../../src/cache/answer-store-types.ts";
import { API_VERSION } from "../../src/config/constants.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(async () => {
  await gw.stop();
});

let seq = 0;
function seed(projectId: string, tags: string[]): NewCachedAnswer & { id: number } {
  const now = Date.now();
  return gw.deps.answers.put({
    projectId, key: sha256Hex(`flow ${++seq}`), partition: "p", model: "openai/gpt-4o-mini", provider: "openai",
    body: '{"object":"chat.completion"}', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    tags, question: null, createdAt: now, expiresAt: now + 3_600_000,
  });
}
const invalidate = (body: unknown, key: string | null = gw.testKey) => post(`${gw.url}/cache/invalidate`, key, body);
const live = (e: { projectId: string; key: string }) => gw.deps.answers.get(e.projectId, e.key, Date.now()) !== null;

describe('POST /cache/invalidate (docs/api.md "Cache invalidation")', () => {
  test("by tags: removes the project's answers carrying any of them and says how many", async () => {
    const [a, b, c] = [seed(gw.projectId, ["faq", "x"]), seed(gw.projectId, ["subtype:qa"]), seed(gw.projectId, ["keep"])];
    const res = await invalidate({ tags: ["faq", "subtype:qa", "unused"] });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
    expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
    expect(await res.json()).toEqual({ object: "cache.invalidation", deleted: 2 });
    expect([live(a), live(b), live(c)]).toEqual([false, false, true]);
    // Again: nothing left to delete.
    expect(await (await invalidate({ tags: ["faq"] })).json()).toEqual({ object: "cache.invalidation", deleted: 0 });
  });

  test("all: empties the calling project's cache and leaves other projects alone", async () => {
    const other = gw.newProject("cache-other");
    const mine = [seed(gw.projectId, ["t"]), seed(gw.projectId, [])];
    const theirs = seed(other, ["t"]);
    await gw.deps.answers.flushed();
    const res = await invalidate({ all: true });
    expect(res.status).toBe(200);
    const { deleted } = (await res.json()) as { deleted: number };
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect(mine.some(live)).toBe(false);
    expect(live(theirs)).toBe(true);
    // The other project's own key sees its own entry; tags are project-scoped too.
    const otherKey = gw.key({ projectId: other });
    expect(await (await invalidate({ tags: ["t"] }, otherKey)).json()).toEqual({ object: "cache.invalidation", deleted: 1 });
  });

  test("all wins over tags sent with it; all:false with tags invalidates by tags", async () => {
    const [a, b] = [seed(gw.projectId, ["one"]), seed(gw.projectId, ["two"])];
    expect(await (await invalidate({ all: false, tags: ["one"] })).json()).toEqual({ object: "cache.invalidation", deleted: 1 });
    expect([live(a), live(b)]).toEqual([false, true]);
    expect(await (await invalidate({ all: true, tags: ["nothing-has-this"] })).json()).toEqual({ object: "cache.invalidation", deleted: 1 });
    expect(live(b)).toBe(false);
  });

  test("100 tags of 120 characters are accepted", async () => {
    const tags = Array.from({ length: 100 }, (_, i) => String(i).padStart(120, "t"));
    const e = seed(gw.projectId, [tags[99]!]);
    expect(await (await invalidate({ tags })).json()).toEqual({ object: "cache.invalidation", deleted: 1 });
    expect(live(e)).toBe(false);
  });
});

describe('invalid bodies answer 422 {message, errors} (docs/api.md "Errors")', () => {
  const cases: Array<[string, unknown, string]> = [
    ["101 tags", { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, "tags"],
    ["a tag of 121 characters", { tags: ["ok", "x".repeat(121)] }, "tags[1]"],
    ["an empty tag", { tags: [""] }, "tags[0]"],
    ["a tag that is not a string", { tags: [7] }, "tags[0]"],
    ["tags that are not a list", { tags: "faq" }, "tags"],
    ["an empty tags list without all", { tags: [] }, "tags"],
    ["an empty tags list with all", { tags: [], all: true }, "tags"],
    ["all that is not a boolean", { all: "true" }, "all"],
    ["all:false and no tags", { all: false }, "tags"],
    ["an empty object", {}, "tags"],
    ["a JSON array", [{ all: true }], "body"],
    ["a JSON string", '"all"', "body"],
    ["a body that is not JSON", "{all: true", "body"],
    ["an empty body", "", "body"],
  ];
  for (const [name, body, field] of cases) {
    test(`${name} -> 422 naming '${field}'`, async () => {
      const e = seed(gw.projectId, ["faq"]);
      const res = await invalidate(body);
      expect(res.status).toBe(422);
      expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
      expect(res.headers.get("x-gw-request-id")).toMatch(/^req_/);
      const json = (await res.json()) as { message: string; errors: Record<string, string[]> };
      expect(Object.keys(json).sort()).toEqual(["errors", "message"]);
      expect(json.message).toContain(field === "body" ? "request body" : `'${field}'`);
      expect(json.errors[field]?.length).toBeGreaterThan(0);
      for (const reasons of Object.values(json.errors)) for (const r of reasons) expect(typeof r).toBe("string");
      expect(live(e)).toBe(true);
    });
  }

  test("every failing field is listed", async () => {
    const res = await invalidate({ tags: ["", "x".repeat(121)], all: 1 });
    expect(res.status).toBe(422);
    const { errors } = (await res.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(errors).sort()).toEqual(["all", "tags[0]", "tags[1]"]);
    expect(errors["tags[1]"]).toEqual(["must be at most 120 characters"]);
    expect(errors.all).toEqual(["must be a boolean"]);
  });
});

describe('authentication and the `cache` scope (docs/api.md "Authentication")', () => {
  test("no key -> 401 invalid_api_key", async () => {
    const res = await invalidate({ all: true }, null);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect(res.headers.get("x-gw-api-version")).toBe(API_VERSION);
  });

  test("a key without the cache scope -> 403 permission_denied, nothing deleted", async () => {
    const e = seed(gw.projectId, ["faq"]);
    const res = await invalidate({ all: true }, gw.key({ scopes: ["chat", "models"] }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("permission_denied");
    expect(live(e)).toBe(true);
  });

  test("auth is checked before the body: no key and a bad body is still 401", async () => {
    expect((await invalidate("not json", null)).status).toBe(401);
  });
});
