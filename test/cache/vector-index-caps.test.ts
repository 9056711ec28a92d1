// The semantic index's memory bounds (docs/semantic-cache.md "Memory", issue 14 item 3): flat
// partitions that grow from one slot and become graphs past flatMax, byte caps per project and in
// total with LRU eviction of whole partitions, and no wrong hit after any eviction.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FlatPartition } from "../../src/cache/vector-flat.ts";
import { VectorIndex } from "../../src/cache/vector-index.ts";

const DIMS = 32;
let seed = 7;
const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
const vector = (): Float32Array => Float32Array.from({ length: DIMS }, rand);
/** One flat partition holding one vector: what a fresh scope costs. */
const ONE = new FlatPartition(DIMS).bytes() + 96;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("flat partitions", () => {
  test("exact search: the same ranking and similarities as a graph over the same vectors", () => {
    const flat = new VectorIndex({ dimensions: DIMS });
    const graph = new VectorIndex({ dimensions: DIMS, flatMax: 0 });
    const vs = Array.from({ length: 60 }, vector);
    vs.forEach((v, i) => {
      flat.add(i, v, "p");
      graph.add(i, v, "p");
    });
    expect(flat.stats().graphs).toBe(0);
    expect(graph.stats().graphs).toBe(1);
    for (const q of [vs[3]!, vs[41]!, vector()]) {
      const a = flat.search(q, "p", 5);
      const b = graph.search(q, "p", 5);
      expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
      a.forEach((h, i) => expect(h.similarity).toBeCloseTo(b[i]!.similarity, 4));
    }
  });

  test("a fresh scope costs its vector, not a graph: 1,000 one-entry scopes stay under 10 MB", () => {
    const index = new VectorIndex({ dimensions: 512 });
    const v = Float32Array.from({ length: 512 }, rand);
    for (let i = 0; i < 1000; i++) index.add(i, v, `scope-${i}`, "p1");
    const s = index.stats();
    expect(s.partitions).toBe(1000);
    expect(s.graphs).toBe(0);
    expect(s.bytes).toBeLessThan(10 * 1024 * 1024); // one empty hnswlib graph alone is 2.6 MB
  });

  test("past flatMax a partition becomes a graph; adds and removes made meanwhile are kept", async () => {
    const index = new VectorIndex({ dimensions: DIMS, flatMax: 16, rebuildSliceMs: 0 });
    const vs = Array.from({ length: 40 }, vector);
    for (let i = 0; i < 17; i++) index.add(i, vs[i]!, "p");
    // The graph is built in slices; the flat partition keeps changing under it.
    for (let i = 17; i < 40; i++) index.add(i, vs[i]!, "p");
    index.remove(2);
    index.remove(30);
    await index.settled();
    expect(index.stats().graphs).toBe(1);
    expect(index.size).toBe(38);
    for (const i of [0, 16, 17, 39]) expect(index.search(vs[i]!, "p", 1)[0]?.id).toBe(i);
    for (const i of [2, 30]) expect(index.search(vs[i]!, "p", 1)[0]?.id).not.toBe(i);
  });
});

describe("caps and eviction", () => {
  test("many scopes under a total cap: the bytes never pass it, the oldest scopes go first", () => {
    const cap = 50 * ONE;
    const index = new VectorIndex({ dimensions: DIMS, maxBytes: cap });
    for (let i = 0; i < 2000; i++) {
      index.add(i, vector(), `scope-${i}`, `project-${i % 3}`);
      expect(index.stats().bytes).toBeLessThanOrEqual(cap);
    }
    const s = index.stats();
    expect(s.partitions).toBeLessThanOrEqual(50);
    expect(s.partitions).toBeGreaterThan(30);
    expect(s.evictions).toBe(2000 - s.partitions);
    expect(index.partitionKeys()).toContain("scope-1999");
    expect(index.partitionKeys()).not.toContain("scope-0");
  });

  test("a project past its own cap evicts its own scopes, not another project's", () => {
    const index = new VectorIndex({ dimensions: DIMS, maxProjectBytes: 20 * ONE, maxBytes: 1000 * ONE });
    const quiet = vector();
    index.add(1, quiet, "quiet-scope", "quiet");
    for (let i = 0; i < 500; i++) index.add(100 + i, vector(), `flood-${i}`, "flood");
    expect(index.projectBytes("flood")).toBeLessThanOrEqual(20 * ONE);
    expect(index.search(quiet, "quiet-scope", 1)[0]?.id).toBe(1);
  });

  test("a used scope is kept over an idle one (least recently used goes)", () => {
    const index = new VectorIndex({ dimensions: DIMS, maxBytes: 10 * ONE });
    const hot = vector();
    index.add(0, hot, "hot");
    for (let i = 1; i < 200; i++) {
      index.add(i, vector(), `cold-${i}`);
      expect(index.search(hot, "hot", 1)[0]?.id).toBe(0);
    }
  });

  test("one scope larger than the whole cap is dropped whole rather than passing it", () => {
    const index = new VectorIndex({ dimensions: DIMS, maxBytes: 8 * ONE });
    for (let i = 0; i < 100; i++) {
      index.add(i, vector(), "huge");
      expect(index.stats().bytes).toBeLessThanOrEqual(8 * ONE);
    }
    expect(index.stats().evictions).toBeGreaterThan(0);
  });

  test("after any eviction a lookup finds only ids of its own partition (a miss, never a wrong hit)", () => {
    const index = new VectorIndex({ dimensions: DIMS, maxBytes: 40 * ONE, maxProjectBytes: 25 * ONE });
    const owner = new Map<number, string>();
    const vs: Float32Array[] = [];
    for (let i = 0; i < 600; i++) {
      const v = vector();
      vs.push(v);
      const key = `scope-${i % 97}`;
      index.add(i, v, key, `project-${i % 5}`);
      owner.set(i, key);
      if (i % 7 === 0 && i >= 3) index.remove(i - 3);
    }
    let hits = 0;
    for (let i = 0; i < 600; i++) {
      for (const key of [owner.get(i)!, `scope-${(i + 1) % 97}`]) {
        for (const h of index.search(vs[i]!, key, 5)) {
          expect(owner.get(h.id)).toBe(key);
          hits++;
        }
      }
    }
    expect(hits).toBeGreaterThan(0);
    expect(index.stats().evictions).toBeGreaterThan(0);
  });

  test("a saved index loads within smaller caps, keeping the most recently used scopes", () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-vcaps-"));
    dirs.push(dir);
    const big = new VectorIndex({ dimensions: DIMS, tag: "t" });
    for (let i = 0; i < 100; i++) big.add(i + 1, vector(), `scope-${i}`, "p");
    big.save(dir);
    const small = new VectorIndex({ dimensions: DIMS, tag: "t", maxBytes: 10 * ONE });
    expect(small.load(dir)).toBe(true);
    expect(small.stats().bytes).toBeLessThanOrEqual(10 * ONE);
    expect(small.partitionKeys()).toContain("scope-99");
    expect(small.partitionKeys()).not.toContain("scope-0");
    expect(small.watermark).toBe(100);
  });
});
