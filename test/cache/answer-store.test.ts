// The exact answer store over a real SQLite file (docs/cache.md "Storage"):
// put/get/replace, the byte-bounded LRU, the key index across restarts, batched writes, expiry and
// the sweep, outages. Invalidation and project isolation: answer-store-invalidate.test.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { SqliteAnswerStore } from "../../src/cache/answer-store.ts";
import { cacheEntriesRepo } from "../../src/store/repos/cache-entries.ts";
import { entry, fixture, HOUR, NOW, rowCount, type Fixture } from "./answer-store-helpers.ts";
import { waitFor } from "../helpers/wait-for.ts";

let f: Fixture;
afterEach(() => f.cleanup());

describe('get, put and replace (docs/cache.md "Storage")', () => {
  test("a put is visible at once, before any SQLite write; other keys miss", () => {
    f = fixture();
    const stored = f.store.put(entry({ tags: ["b", "a", "b"] }));
    expect(stored.id).toBeGreaterThan(0);
    expect(stored.tags).toEqual(["a", "b"]);
    expect(f.store.get("proj_a", stored.key, NOW)).toEqual(stored);
    expect(rowCount(f.db, "cache_entries")).toBe(0);
    expect(f.store.get("proj_a", entry().key, NOW)).toBeNull();
    f.store.flush();
    expect(rowCount(f.db, "cache_entries")).toBe(1);
    expect(rowCount(f.db, "cache_tags")).toBe(2);
  });

  test("the batch is written off the request path, in one go, shortly after the puts", async () => {
    f = fixture({ flushDelayMs: 1 });
    for (let i = 0; i < 5; i++) f.store.put(entry());
    expect(rowCount(f.db, "cache_entries")).toBe(0);
    await waitFor(() => rowCount(f.db, "cache_entries") >= 5, { what: "the batch write" });
    expect(rowCount(f.db, "cache_entries")).toBe(5);
  });

  test("replacing a key serves the new answer, reports the old id, and leaves one row and its tags", () => {
    f = fixture();
    const first = f.store.put(entry({ tags: ["old"] }));
    f.store.flush();
    const second = f.store.put(entry({ key: first.key, body: '{"v":2}', tags: ["new"] }));
    expect(second.id).toBeGreaterThan(first.id);
    expect(f.removed).toEqual([first.id]);
    expect(f.store.get("proj_a", first.key, NOW)?.body).toBe('{"v":2}');
    // The old row is still on disk until the batch runs, but it is no longer an answer.
    expect(f.store.byId("proj_a", first.id, NOW)).toBeNull();
    f.store.flush();
    expect(rowCount(f.db, "cache_entries")).toBe(1);
    expect(f.db.query<{ tag: string }, []>("SELECT tag FROM cache_tags").all()).toEqual([{ tag: "new" }]);
  });

  test("byId serves the project's entry only", () => {
    f = fixture();
    const e = f.store.put(entry());
    expect(f.store.byId("proj_a", e.id, NOW)?.key).toBe(e.key);
    expect(f.store.byId("proj_b", e.id, NOW)).toBeNull();
    f.store.flush();
    f.restart();
    expect(f.store.byId("proj_b", e.id, NOW)).toBeNull();
    expect(f.store.byId("proj_a", e.id, NOW)?.body).toBe(e.body);
  });
});

describe("docs/cache.md Storage: the LRU bounded by bytes and the key index", () => {
  test("the LRU keeps the budget; an evicted entry is read back from SQLite, a hot one is not", () => {
    f = fixture({ memoryBytes: 4000 });
    const big = "x".repeat(1000);
    const entries = Array.from({ length: 6 }, (_, i) => f.store.put(entry({ body: `${big}${i}` })));
    expect(f.store.memoryBytes).toBeLessThanOrEqual(4000);
    f.store.flush();
    const reads = f.probe.reads;
    expect(f.store.get("proj_a", entries[5]!.key, NOW)?.body).toBe(`${big}5`);
    expect(f.probe.reads).toBe(reads);
    expect(f.store.get("proj_a", entries[0]!.key, NOW)).toEqual(entries[0]!);
    expect(f.probe.reads).toBe(reads + 1);
    // Now hot again: the second read costs no disk read.
    f.store.get("proj_a", entries[0]!.key, NOW);
    expect(f.probe.reads).toBe(reads + 1);
    expect(f.store.memoryBytes).toBeLessThanOrEqual(4000);
  });

  test("an entry larger than the whole budget is still served: from the queue, then from SQLite", () => {
    f = fixture({ memoryBytes: 500 });
    const huge = f.store.put(entry({ body: "y".repeat(5000) }));
    expect(f.store.get("proj_a", huge.key, NOW)?.body.length).toBe(5000);
    f.store.flush();
    expect(f.store.get("proj_a", huge.key, NOW)?.body.length).toBe(5000);
    expect(f.store.memoryBytes).toBe(0);
  });

  test("a miss never touches SQLite, not even during an outage", () => {
    f = fixture();
    f.store.put(entry());
    f.store.flush();
    f.probe.down = true;
    for (let i = 0; i < 50; i++) expect(f.store.get("proj_a", entry().key, NOW)).toBeNull();
    expect(f.probe.reads).toBe(0);
  });

  test("after a restart the key index is loaded from SQLite and every flushed entry is served", () => {
    f = fixture();
    const kept = [f.store.put(entry({ tags: ["x", "faq"], question: "What is the capital of France?" })), f.store.put(entry({ projectId: "proj_b" }))];
    f.store.flush();
    const store = f.restart();
    expect(store.keys).toBe(2);
    expect(f.probe.reads).toBe(0);
    for (const e of kept) expect(store.get(e.projectId, e.key, NOW)).toEqual(e);
    expect(f.probe.reads).toBe(2);
  });

  test("close() writes what is queued: nothing put before a clean stop is lost", () => {
    f = fixture();
    const e = f.store.put(entry());
    expect(rowCount(f.db, "cache_entries")).toBe(0);
    const store = f.restart();
    expect(store.get("proj_a", e.key, NOW)?.body).toBe(e.body);
  });

  test("keys that are not sha256 hex work too", () => {
    f = fixture();
    const e = f.store.put(entry({ key: "plain key with spaces" }));
    f.store.flush();
    expect(f.restart().get("proj_a", "plain key with spaces", NOW)?.id).toBe(e.id);
  });
});

describe('TTLs: expiry and the sweep (docs/cache.md "TTL and tags")', () => {
  test("an expired entry is a miss for get and byId, also from SQLite", () => {
    f = fixture();
    const e = f.store.put(entry({ expiresAt: NOW + 10 }));
    expect(f.store.get("proj_a", e.key, NOW + 9)?.id).toBe(e.id);
    expect(f.store.get("proj_a", e.key, NOW + 10)).toBeNull();
    expect(f.store.byId("proj_a", e.id, NOW + 10)).toBeNull();
    f.store.flush();
    f.restart({ memoryBytes: 0 });
    // Not expired yet at the real clock, so loaded; expired at the caller's time.
    expect(f.store.get("proj_a", e.key, NOW + 10)).toBeNull();
    expect(f.store.byId("proj_a", e.id, NOW + 10)).toBeNull();
  });

  test("the sweep deletes expired rows and tags in small batches and reports their ids", () => {
    f = fixture();
    const expired = Array.from({ length: 7 }, () => f.store.put(entry({ expiresAt: NOW + 5, tags: ["t1", "t2"] })));
    const live = f.store.put(entry({ expiresAt: NOW + HOUR }));
    f.store.flush();
    expect(f.store.sweep(NOW + 5, 3)).toBe(3);
    expect(f.store.sweep(NOW + 5, 3)).toBe(3);
    expect(f.store.sweep(NOW + 5, 3)).toBe(1);
    expect(f.store.sweep(NOW + 5, 3)).toBe(0);
    expect(f.removed.sort((a, b) => a - b)).toEqual(expired.map((e) => e.id));
    expect(rowCount(f.db, "cache_entries")).toBe(1);
    expect(rowCount(f.db, "cache_tags")).toBe(1);
    expect(f.store.keys).toBe(1);
    expect(f.store.get("proj_a", live.key, NOW)?.id).toBe(live.id);
  });

  test("the sweep timer runs on its own", async () => {
    f = fixture({ sweepIntervalMs: 5 });
    const e = f.store.put(entry({ expiresAt: Date.now() - 1 }));
    f.store.flush();
    await waitFor(() => f.removed.length > 0, { what: "the sweep" });
    expect(f.removed).toEqual([e.id]);
  });
});

describe('a cache outage is a miss: the store throws, the caller misses (docs/api.md "Errors")', () => {
  test("a read that needs SQLite throws while it is down; memory state survives and serves again after", () => {
    f = fixture({ memoryBytes: 0 });
    const e = f.store.put(entry());
    f.store.flush();
    f.probe.down = true;
    expect(() => f.store.get("proj_a", e.key, NOW)).toThrow(/disk I\/O/);
    expect(() => f.store.byId("proj_a", e.id, NOW)).toThrow(/disk I\/O/);
    f.probe.down = false;
    expect(f.store.get("proj_a", e.key, NOW)?.id).toBe(e.id);
  });

  test("a closed database throws too", () => {
    f = fixture({ memoryBytes: 0 });
    const e = f.store.put(entry());
    f.store.flush();
    f.db.close();
    expect(() => f.store.get("proj_a", e.key, NOW)).toThrow();
  });

  test("failing writes stay queued, are served from memory, and reach SQLite once it is back", () => {
    f = fixture();
    const e = f.store.put(entry());
    f.probe.down = true;
    expect(() => f.store.flush()).toThrow(/disk I\/O/);
    expect(f.store.get("proj_a", e.key, NOW)?.id).toBe(e.id);
    const later = f.store.put(entry());
    f.probe.down = false;
    f.store.flush();
    expect(rowCount(f.db, "cache_entries")).toBe(2);
    expect(f.restart().get("proj_a", later.key, NOW)?.id).toBe(later.id);
  });

  test("ids are never handed out twice, even for entries that never reached SQLite", () => {
    f = fixture();
    const e = f.store.put(entry({ tags: ["gone"] }));
    f.store.invalidate("proj_a", { tags: ["gone"] });
    f.store.flush();
    expect(f.restart().put(entry()).id).toBeGreaterThan(e.id);
  });

  test("... also when `all` left nothing to write: the high-water mark is written on close", () => {
    f = fixture();
    const e = f.store.put(entry());
    f.store.invalidate("proj_a", { all: true });
    expect(f.restart().put(entry()).id).toBeGreaterThan(e.id);
  });
});

describe("semantic entries (for rebuilding the semantic index)", () => {
  test("lists live entries with a question: flushed and queued, not replaced, expired or plain ones", () => {
    f = fixture();
    const flushed = f.store.put(entry({ question: "capital of France?", partition: "p1" }));
    const replaced = f.store.put(entry({ question: "old question" }));
    f.store.put(entry({ question: null }));
    f.store.put(entry({ question: "expired", expiresAt: NOW - 1 }));
    f.store.flush();
    const replacement = f.store.put(entry({ key: replaced.key, question: "new question" }));
    const ids = [...f.store.semanticEntries()].map((s) => s.id).sort((a, b) => a - b);
    expect(ids).toEqual([flushed.id, replacement.id]);
    expect([...f.store.semanticEntries()].find((s) => s.id === flushed.id)).toEqual({ id: flushed.id, partition: "p1", question: "capital of France?", projectId: "proj_a", provider: flushed.provider });
  });
});

test("a store over a fresh database starts empty", () => {
  f = fixture();
  const other = new SqliteAnswerStore(cacheEntriesRepo(f.db), { memoryBytes: 0, sweepIntervalMs: 0 });
  expect(other.keys).toBe(0);
  other.close();
});
