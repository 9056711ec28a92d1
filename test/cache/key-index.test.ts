// The cache's key index (docs/cache.md "Storage") against a plain Map under random puts, removals
// and project wipes, plus the key forms it must keep apart; and the byte-bounded LRU.
import { describe, expect, test } from "bun:test";
import { KeyIndex } from "../../src/cache/key-index.ts";
import { ByteLru } from "../../src/cache/lru.ts";
import { sha256Hex } from "../../src/lib/hash.ts";

/** Deterministic: a failure reproduces. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe("KeyIndex", () => {
  test("agrees with a Map through 100k random operations (growth, backward-shift deletes, wipes)", () => {
    const rand = prng(42);
    const index = new KeyIndex();
    const ref = new Map<string, { project: string; key: string; id: number; expiresAt: number }>();
    const keys = Array.from({ length: 3000 }, (_, i) => (i % 10 === 0 ? `raw key ${i}` : sha256Hex(`k${i}`)));
    let id = 0;
    for (let op = 0; op < 100_000; op++) {
      const project = `proj_${Math.floor(rand() * 4)}`;
      const key = keys[Math.floor(rand() * keys.length)]!;
      const slot = `${project}\u0000${key}`;
      const r = rand();
      if (r < 0.55) {
        const previous = index.set(project, key, ++id, op);
        expect(previous).toBe(ref.get(slot)?.id);
        ref.set(slot, { project, key, id, expiresAt: op });
      } else if (r < 0.999) {
        const held = ref.get(slot);
        // A stale id never removes the live one.
        expect(index.remove(project, key, (held?.id ?? 0) + 1_000_000)).toBeUndefined();
        expect(index.remove(project, key, held?.id ?? -1)).toBe(held?.expiresAt);
        ref.delete(slot);
      } else {
        const gone = index.removeProject(project).map((g) => g.id).sort((a, b) => a - b);
        const expected = [...ref.values()].filter((v) => v.project === project).map((v) => v.id).sort((a, b) => a - b);
        expect(gone).toEqual(expected);
        for (const [k, v] of ref) if (v.project === project) ref.delete(k);
      }
    }
    expect(index.size).toBe(ref.size);
    for (const v of ref.values()) expect(index.find(v.project, v.key)).toEqual({ id: v.id, expiresAt: v.expiresAt });
  });

  test("a raw key and the hex of its own digest are different keys; upper-case hex is its own key", () => {
    const index = new KeyIndex();
    const raw = "not hex";
    const hex = sha256Hex(raw);
    index.set("p", raw, 1, 10);
    expect(index.find("p", hex)).toBeUndefined();
    index.set("p", hex, 2, 10);
    index.set("p", hex.toUpperCase(), 3, 10);
    expect([index.find("p", raw)?.id, index.find("p", hex)?.id, index.find("p", hex.toUpperCase())?.id]).toEqual([1, 2, 3]);
    expect(index.find("q", hex)).toBeUndefined();
  });

  test("reserve sizes it up front without changing what it holds", () => {
    const index = new KeyIndex();
    index.set("p", sha256Hex("a"), 1, 5);
    index.reserve(50_000);
    expect(index.find("p", sha256Hex("a"))).toEqual({ id: 1, expiresAt: 5 });
    expect(index.size).toBe(1);
  });
});

describe("ByteLru", () => {
  test("evicts the least recently used until the bytes fit; a read refreshes recency", () => {
    const lru = new ByteLru<string>(100);
    lru.set(1, "a", 40);
    lru.set(2, "b", 40);
    lru.get(1);
    lru.set(3, "c", 40);
    expect([lru.has(1), lru.has(2), lru.has(3)]).toEqual([true, false, true]);
    expect(lru.bytes).toBe(80);
    expect(lru.set(4, "huge", 101)).toBe(false);
    expect(lru.bytes).toBe(80);
    lru.set(1, "a2", 10);
    expect(lru.bytes).toBe(50);
    expect(lru.delete(3)).toBe(true);
    expect(lru.bytes).toBe(10);
  });
});
