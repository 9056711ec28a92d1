// Invalidation in the answer store (docs/api.md "Cache invalidation"): by tags (any of them) or all, in
// SQLite, the LRU, the key index and the write queue; project-scoped; counts and removal reports.
import { afterEach, describe, expect, test } from "bun:test";
import { entry, fixture, NOW, rowCount, type Fixture } from "./answer-store-helpers.ts";

let f: Fixture;
afterEach(() => f.cleanup());

const seedTagged = () => ({
  a: f.store.put(entry({ tags: ["a"] })),
  b: f.store.put(entry({ tags: ["b"] })),
  c: f.store.put(entry({ tags: ["c"] })),
  ab: f.store.put(entry({ tags: ["a", "b"] })),
});

describe('invalidation by tags removes entries carrying any of them (docs/api.md "Cache invalidation")', () => {
  for (const flushed of [true, false]) {
    test(`entries ${flushed ? "already in SQLite" : "still queued"} go everywhere; the rest stay`, async () => {
      f = fixture();
      const e = seedTagged();
      if (flushed) f.store.flush();
      expect(await f.store.invalidate("proj_a", { tags: ["a", "b", "zzz"] })).toBe(3);
      expect(f.removed.sort((x, y) => x - y)).toEqual([e.a.id, e.b.id, e.ab.id]);
      for (const gone of [e.a, e.b, e.ab]) {
        expect(f.store.get("proj_a", gone.key, NOW)).toBeNull();
        expect(f.store.byId("proj_a", gone.id, NOW)).toBeNull();
      }
      expect(f.store.get("proj_a", e.c.key, NOW)?.id).toBe(e.c.id);
      f.store.flush();
      expect(rowCount(f.db, "cache_entries")).toBe(1);
      expect(rowCount(f.db, "cache_tags")).toBe(1);
      const store = f.restart();
      expect(store.keys).toBe(1);
      expect(store.get("proj_a", e.c.key, NOW)?.id).toBe(e.c.id);
    });
  }

  test("a tag nobody carries deletes nothing", async () => {
    f = fixture();
    seedTagged();
    expect(await f.store.invalidate("proj_a", { tags: ["nope"] })).toBe(0);
    expect(f.removed).toEqual([]);
    expect(f.store.keys).toBe(4);
  });

  test("a queued write invalidated before its flush does not come back after a restart", async () => {
    f = fixture();
    const e = f.store.put(entry({ tags: ["x"] }));
    expect(await f.store.invalidate("proj_a", { tags: ["x"] })).toBe(1);
    expect(f.restart().get("proj_a", e.key, NOW)).toBeNull();
    expect(rowCount(f.db, "cache_entries")).toBe(0);
  });

  test("... nor does the older answer that queued write was replacing", async () => {
    f = fixture();
    const v1 = f.store.put(entry({ body: '"v1"', tags: ["y"] }));
    f.store.flush();
    const v2 = f.store.put(entry({ key: v1.key, body: '"v2"', tags: ["x"] }));
    expect(await f.store.invalidate("proj_a", { tags: ["x"] })).toBe(1);
    expect(f.removed).toEqual([v1.id, v2.id]);
    expect(f.store.get("proj_a", v1.key, NOW)).toBeNull();
    const store = f.restart();
    expect(store.get("proj_a", v1.key, NOW)).toBeNull();
    expect(store.byId("proj_a", v1.id, NOW)).toBeNull();
    expect(rowCount(f.db, "cache_entries")).toBe(0);
  });

  test("an older row carrying the tag is deleted without touching its live replacement", async () => {
    f = fixture();
    const v1 = f.store.put(entry({ tags: ["x"] }));
    f.store.flush();
    const v2 = f.store.put(entry({ key: v1.key, tags: ["y"] }));
    // Only the replaced row matches, and it was no longer an answer.
    expect(await f.store.invalidate("proj_a", { tags: ["x"] })).toBe(0);
    expect(f.restart().get("proj_a", v1.key, NOW)?.id).toBe(v2.id);
  });

  test("expired entries are removed but not counted: they could no longer be served", async () => {
    f = fixture();
    f.store.put(entry({ tags: ["t"], expiresAt: NOW - 1 }));
    f.store.put(entry({ tags: ["t"] }));
    expect(await f.store.invalidate("proj_a", { tags: ["t"] })).toBe(1);
    expect(f.removed.length).toBe(2);
  });
});

describe('`all` empties the response cache of the project (docs/api.md "Cache invalidation")', () => {
  test("flushed and queued entries go; the count is the project's live answers", async () => {
    f = fixture();
    seedTagged();
    f.store.flush();
    const queued = f.store.put(entry({ tags: [] }));
    expect(await f.store.invalidate("proj_a", { all: true })).toBe(5);
    expect(f.removed.length).toBe(5);
    expect(f.store.keys).toBe(0);
    expect(f.store.get("proj_a", queued.key, NOW)).toBeNull();
    expect(f.restart().keys).toBe(0);
    expect(rowCount(f.db, "cache_entries")).toBe(0);
    expect(rowCount(f.db, "cache_tags")).toBe(0);
  });

  test("an empty project deletes nothing", async () => {
    f = fixture();
    expect(await f.store.invalidate("proj_empty", { all: true })).toBe(0);
  });
});

describe('answers never cross projects (docs/cache.md "Keys")', () => {
  test("identical keys in two projects are independent entries", async () => {
    f = fixture();
    const a = f.store.put(entry({ projectId: "proj_a", body: '"A"' }));
    const b = f.store.put(entry({ projectId: "proj_b", key: a.key, body: '"B"' }));
    expect(f.removed).toEqual([]);
    expect(f.store.get("proj_a", a.key, NOW)?.body).toBe('"A"');
    expect(f.store.get("proj_b", a.key, NOW)?.body).toBe('"B"');
    f.store.flush();
    const store = f.restart({ memoryBytes: 0 });
    expect(store.get("proj_a", a.key, NOW)?.id).toBe(a.id);
    expect(store.get("proj_b", a.key, NOW)?.id).toBe(b.id);
  });

  for (const flushed of [true, false]) {
    test(`another project's entries survive both kinds of invalidation (${flushed ? "flushed" : "queued"})`, async () => {
      f = fixture();
      const mine = f.store.put(entry({ projectId: "proj_a", tags: ["shared"] }));
      const theirs = f.store.put(entry({ projectId: "proj_b", tags: ["shared"] }));
      const theirsSameKey = f.store.put(entry({ projectId: "proj_b", key: mine.key, tags: ["shared"] }));
      if (flushed) f.store.flush();
      expect(await f.store.invalidate("proj_a", { tags: ["shared"] })).toBe(1);
      expect(await f.store.invalidate("proj_a", { all: true })).toBe(0);
      expect(f.removed).toEqual([mine.id]);
      const store = f.restart();
      expect(store.get("proj_b", theirs.key, NOW)?.id).toBe(theirs.id);
      expect(store.get("proj_b", mine.key, NOW)?.id).toBe(theirsSameKey.id);
      expect(store.get("proj_a", mine.key, NOW)).toBeNull();
    });
  }
});

describe("removal listeners", () => {
  test("a failing listener neither fails the removal nor stops other listeners", async () => {
    const errors: string[] = [];
    f = fixture({ onError: (_err, context) => errors.push(context) });
    const seen: number[] = [];
    f.store.onRemoved(() => {
      throw new Error("index broke");
    });
    f.store.onRemoved((ids) => seen.push(...ids));
    const e = f.store.put(entry({ tags: ["t"] }));
    expect(await f.store.invalidate("proj_a", { tags: ["t"] })).toBe(1);
    expect(seen).toEqual([e.id]);
    expect(errors).toEqual(["cache removal listener failed"]);
  });

  test("an invalidation SQLite refuses throws and changes nothing in memory", async () => {
    f = fixture();
    const e = f.store.put(entry({ tags: ["t"] }));
    f.store.flush();
    f.probe.down = true;
    await expect(f.store.invalidate("proj_a", { tags: ["t"] })).rejects.toThrow(/disk I\/O/);
    await expect(f.store.invalidate("proj_a", { all: true })).rejects.toThrow(/disk I\/O/);
    expect(f.store.get("proj_a", e.key, NOW)?.id).toBe(e.id);
    expect(f.removed).toEqual([]);
  });
});
