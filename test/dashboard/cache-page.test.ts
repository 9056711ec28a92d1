// The dashboard's cache API with real requests and sign-ins (docs/dashboard.md "Cache API"): entries, bytes,
// hits, saved tokens, miss reasons; Empty cache and tag invalidation through deps.answers.invalidate (the
// next identical request misses), audited, scope `cache` and CSRF required; `cache: false` reads as disabled.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateProject } from "../../src/admin/projects.ts";
import { ask, chat } from "../contract/request-log-helpers.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let base: string;
let cacheSession: { cookie: string; csrf: string };
let readOnly: { cookie: string; csrf: string };

async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${base}/dashboard/api/session`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }),
  });
  expect(res.status).toBe(200);
  return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
}

const read = async (s: { cookie: string }, query = "") => {
  const res = await fetch(`${base}/dashboard/api/cache${query}`, { headers: { cookie: s.cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    object: string; enabled: boolean; mode: string | null; entries: number; bytes: number; hits: number; exact: number; semantic: number;
    hit_rate: number; saved_usd: number; saved_tokens: number; series: { bucket_ms: number; points: Array<{ exact: number; requests: number }> };
    miss_reasons: Array<{ reason: string; count: number }>;
  };
};

const write = (s: { cookie: string; csrf: string } | null, path: string, body: unknown, csrf = s?.csrf) =>
  fetch(`${base}/dashboard/api${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(s ? { cookie: s.cookie } : {}), ...(csrf ? { "x-gw-csrf": csrf } : {}) },
    body: JSON.stringify(body),
  });

/** The cache result of a request, from its log entry. */
async function cacheOf(id: string): Promise<string | null> {
  await gw.drain();
  return gw.deps.repos.requests.get(gw.projectId, id)!.cache;
}

beforeAll(async () => {
  gw = await startTestGw();
  base = gw.url.replace(/\/v1$/, "");
  cacheSession = await signIn(gw.testKey);
  readOnly = await signIn(gw.key({ scopes: ["chat", "requests"] }));
  await chat(gw, gw.testKey, ask("Cache page one."));
  await chat(gw, gw.testKey, ask("Cache page one."));
  await chat(gw, gw.testKey, { ...ask("Cache page tagged."), cache: { tags: ["docs"] } });
  await chat(gw, gw.testKey, ask("Cache page skipped."), { "X-Gw-Cache": "off" });
  await gw.drain();
});
afterAll(() => gw.stop());

describe("GET /dashboard/api/cache", () => {
  test("entries, bytes, hits, saved tokens and miss reasons of the project", async () => {
    const c = await read(cacheSession, "?period=24h");
    expect(c).toMatchObject({ object: "dashboard.cache", enabled: true, mode: "exact", hits: 1, exact: 1, semantic: 0 });
    expect(c.entries).toBe(2);
    expect(c.bytes).toBeGreaterThan(0);
    const hit = gw.deps.db.query<{ n: number }, [string]>("SELECT input_tokens + output_tokens AS n FROM requests WHERE project_id = ? AND cache = 'exact'").get(gw.projectId);
    expect(c.saved_tokens).toBe(hit!.n);
    expect(c.saved_tokens).toBeGreaterThan(0);
    expect(c.hit_rate).toBe(25);
    expect(c.series.points.reduce((s, p) => s + p.exact, 0)).toBe(1);
    expect(c.series.points.reduce((s, p) => s + p.requests, 0)).toBe(4);
    expect(c.miss_reasons).toContainEqual({ reason: "header_off", count: 1 });
  });

  test("policy cache: false reads as disabled with no mode", async () => {
    const other = gw.newProject("nocache");
    updateProject(gw.deps.repos.projects, other, { policy: { cache: false } }, []);
    const operator = await signIn(ADMIN_TOKEN);
    const c = await read(operator, `?project=${other}`);
    expect(c).toMatchObject({ enabled: false, mode: null, entries: 0, hits: 0, miss_reasons: [] });
  });
});

describe("POST /dashboard/api/cache/empty and /cache/invalidate", () => {
  test("need scope cache and the CSRF header", async () => {
    expect((await write(readOnly, "/cache/empty", {})).status).toBe(403);
    expect((await write(cacheSession, "/cache/empty", {}, "wrong")).status).toBe(403);
    expect((await write(null, "/cache/empty", {})).status).toBe(401);
    expect((await read(cacheSession)).entries).toBe(2);
  });

  test("invalidate by tag deletes only the tagged answer; a body without tags is a 400", async () => {
    const bad = await write(cacheSession, "/cache/invalidate", { tags: [] });
    expect(bad.status).toBe(400);
    const res = await write(cacheSession, "/cache/invalidate", { tags: ["docs"] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: "cache.invalidation", deleted: 1 });
    expect((await read(cacheSession)).entries).toBe(1);
  });

  test("Empty cache deletes every answer, the next identical request is a miss, and both are audited", async () => {
    const res = await write(cacheSession, "/cache/empty", {});
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: "cache.invalidation", deleted: 1 });
    expect((await read(cacheSession)).entries).toBe(0);
    const again = await chat(gw, gw.testKey, ask("Cache page one."));
    expect(await cacheOf(again.id)).toBeNull();
    const entries = (await gw.deps.audit.list({ projectId: gw.projectId })).data;
    const empty = entries.find((e) => e.action === "cache.empty")!;
    expect(empty).toMatchObject({ actorType: "project_session", projectId: gw.projectId, details: { deleted: 1 } });
    expect(entries.find((e) => e.action === "cache.invalidate")).toMatchObject({ details: { deleted: 1, tags: 1 } });
    expect(JSON.stringify(entries)).not.toContain("docs");
  });
});
