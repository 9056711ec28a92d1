// The response cache's TTL classes, tags and invalidation through the pipeline, expiry, and a
// failing store being a miss (docs/cache.md "TTL and tags"; issue 7). Test keys: no upstream needed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let n = 0;
// TTLs are judged on gw's clock: the expiry test moves it instead of sleeping.
const clock = new ManualClock();
beforeAll(async () => {
  gw = await startTestGw({}, { clock });
});
afterAll(() => gw.stop());

interface Answer { gw: { cache: string | null; request_id: string } }
async function ask(b: Record<string, unknown>, k = gw.testKey): Promise<Answer> {
  const res = await post(`${gw.url}/chat/completions`, k, { model: "gw-auto", ...b });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}
const user = (content: string) => ({ messages: [{ role: "user", content: `${content} [${++n}]` }] });
async function stored(id: string): Promise<{ ttl_s: number; ttl_class: string; tags: string[] }> {
  await gw.drain();
  const res = await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${gw.testKey}` } });
  return ((await res.json()) as { trace: { cache: { stored: { ttl_s: number; ttl_class: string; tags: string[] } } } }).trace.cache.stored;
}
const invalidate = (b: unknown, k = gw.testKey) => post(`${gw.url}/cache/invalidate`, k, b);

describe("TTL by content", () => {
  const cases: Array<[string, Record<string, unknown>, string, number]> = [
    ["prices", user("How much does the premium plan cost per seat, and which products are included?"), "prices", 3600],
    ["faq by tag", { ...user("Tell me about your company history."), cache: { tags: ["faq"] } }, "faq", 7 * 86400],
    ["faq detected", user("What is the capital of Canada?"), "faq", 7 * 86400],
    ["translation", user("Translate into German: the cat sleeps on the sofa."), "stable_task", 7 * 86400],
    ["summary", user("Summarize this paragraph in one sentence: The council met on Monday and agreed the new park plan after a long debate about parking."), "stable_task", 7 * 86400],
    ["generated", user("Write a short poem about autumn leaves."), "generated", 6 * 3600],
    ["anything else", user("hello there, nice to meet you"), "default", 86400],
  ];
  for (const [name, b, cls, seconds] of cases) {
    test(name, async () => {
      const a = await ask(b);
      expect(await stored(a.gw.request_id)).toMatchObject({ ttl_class: cls, ttl_s: seconds });
    });
  }

  test("the project's cache_ttl overrides every class, and an expired answer is a miss", async () => {
    const project = gw.newProject("ttl-override");
    await fetch(`${gw.url}/admin/projects/${project}`, {
      method: "PATCH", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ policy: { cache_ttl: 1 } }),
    });
    const k = gw.key({ projectId: project, scopes: ["chat", "requests"] });
    const b = user("Write a short poem about winter.");
    const first = await ask(b, k);
    await gw.drain();
    const res = await fetch(`${gw.url}/requests/${first.gw.request_id}`, { headers: { authorization: `Bearer ${k}` } });
    expect(((await res.json()) as { trace: { cache: { stored: unknown } } }).trace.cache.stored).toMatchObject({ ttl_class: "policy", ttl_s: 1 });
    expect((await ask(b, k)).gw.cache).toBe("exact");
    clock.advance(1100);
    expect((await ask(b, k)).gw.cache).toBeNull();
  });
});

describe("tags and invalidation", () => {
  test("the caller's tags (cache.tags, gw.cache.tags) and the automatic ones are stored", async () => {
    const a = await ask({ ...user("Explain what an API is."), cache: { tags: ["docs"] }, gw: { cache: { tags: ["kb"] }, versions: { knowledge: "k7" }, agent: "helper" } });
    const tags = (await stored(a.gw.request_id)).tags;
    expect(tags).toEqual(expect.arrayContaining(["docs", "kb", `project:${gw.projectId}`, "knowledge:k7", "agent:helper"]));
    expect(tags.some((t) => t.startsWith("subtype:"))).toBe(true);
  });

  test("invalidating a tag removes exactly the answers that carry it", async () => {
    const tagged = { ...user("What does HTTP stand for?"), cache: { tags: ["release-42"] } };
    const other = user("What does DNS stand for?");
    await ask(tagged);
    await ask(other);
    const res = await invalidate({ tags: ["release-42"] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ object: "cache.invalidation", deleted: 1 });
    expect((await ask(tagged)).gw.cache).toBeNull();
    expect((await ask(other)).gw.cache).toBe("exact");
  });

  test("automatic tags work too: agent:<name>", async () => {
    const b = { ...user("List the planets."), gw: { agent: "astro" } };
    await ask(b);
    expect(((await (await invalidate({ tags: ["agent:astro"] })).json()) as { deleted: number }).deleted).toBe(1);
    expect((await ask(b)).gw.cache).toBeNull();
  });

  test("all: true empties this project's cache only", async () => {
    const project = gw.newProject("inv-other");
    const otherKey = gw.key({ projectId: project, scopes: ["chat", "cache"] });
    const b = user("What is the speed of light?");
    await ask(b);
    await ask(b, otherKey);
    const res = await invalidate({ all: true });
    expect(((await res.json()) as { deleted: number }).deleted).toBeGreaterThan(0);
    expect((await ask(b)).gw.cache).toBeNull();
    expect((await ask(b, otherKey)).gw.cache).toBe("exact");
  });
});

describe("a cache outage is a miss, never an error", () => {
  test("a failing store: the request is answered by a model, the trace says cache_unavailable", async () => {
    const b = user("What is the largest ocean?");
    await ask(b);
    const store = gw.deps.answers;
    const get = store.get.bind(store);
    const put = store.put.bind(store);
    store.get = () => {
      throw new Error("disk I/O error");
    };
    store.put = () => {
      throw new Error("disk I/O error");
    };
    try {
      const a = await ask(b);
      expect(a.gw.cache).toBeNull();
      await gw.drain();
      const res = await fetch(`${gw.url}/requests/${a.gw.request_id}`, { headers: { authorization: `Bearer ${gw.testKey}` } });
      expect(((await res.json()) as { trace: { cache: unknown } }).trace.cache).toMatchObject({ result: "error", miss_reason: "cache_unavailable" });
      const streamed = await post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-auto", stream: true, ...user("Name a river in Africa.") });
      expect(streamed.status).toBe(200);
      expect(await streamed.text()).toContain("gw.summary");
    } finally {
      store.get = get;
      store.put = put;
    }
    expect((await ask(b)).gw.cache).toBe("exact");
  });
});
