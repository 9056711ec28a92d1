// The semantic cache's vector index (docs/semantic-cache.md "Vector index"): one partition per scope
// (flat while small, an HNSW graph past flatMax), soft deletes with a rebuild in graphs, and
// persistence that refuses anything it cannot trust. Caps and eviction: vector-index-caps.test.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VectorIndex } from "../../src/cache/vector-index.ts";

const DIMS = 16;
let seed = 11;
const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
function unit(): Float32Array {
  const v = Float32Array.from({ length: DIMS }, rand);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}
const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "gw-vindex-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("vector index partitions (4.13: a hit only from the same scope)", () => {
  test("finds a vector in its own partition and never in another", () => {
    const index = new VectorIndex({ dimensions: DIMS });
    const v = unit();
    index.add(1, v, "project-a");
    index.add(2, unit(), "project-b");
    const [hit] = index.search(v, "project-a", 3);
    expect(hit?.id).toBe(1);
    expect(hit?.similarity).toBeCloseTo(1, 5);
    expect(index.search(v, "project-b", 3).map((h) => h.id)).toEqual([2]);
    expect(index.search(v, "project-c", 3)).toEqual([]);
  });

  test("similarity is cosine, best first; k larger than the partition is fine", () => {
    const index = new VectorIndex({ dimensions: 2 });
    index.add(1, [1, 0], "p");
    index.add(2, [0.6, 0.8], "p");
    index.add(3, [0, 1], "p");
    const hits = index.search([1, 0], "p", 10);
    expect(hits.map((h) => h.id)).toEqual([1, 2, 3]);
    expect(hits.map((h) => Number(h.similarity.toFixed(4)))).toEqual([1, 0.6, 0]);
  });

  test("grows past its initial capacity; re-adding an id moves it between partitions", () => {
    const index = new VectorIndex({ dimensions: DIMS, initialCapacity: 4, flatMax: 0 });
    const vs = Array.from({ length: 50 }, unit);
    vs.forEach((v, i) => index.add(i, v, "p"));
    expect(index.search(vs[37]!, "p", 1)[0]?.id).toBe(37);
    index.add(37, vs[37]!, "q");
    expect(index.search(vs[37]!, "p", 1)[0]?.id).not.toBe(37);
    expect(index.search(vs[37]!, "q", 1)[0]?.id).toBe(37);
    expect(index.size).toBe(50);
  });

  test("rejects ids hnswlib cannot hold and vectors of the wrong size", () => {
    const index = new VectorIndex({ dimensions: DIMS });
    expect(() => index.add(-1, unit(), "p")).toThrow(RangeError);
    expect(() => index.add(2 ** 32, unit(), "p")).toThrow(RangeError);
    expect(() => index.add(1, [1, 0], "p")).toThrow("dimensions");
    expect(index.search([1, 0], "p")).toEqual([]);
  });
});

describe("vector index deletes (4.13: TTL expiry and invalidation)", () => {
  test("a removed id is never found again; removing twice is false", () => {
    const index = new VectorIndex({ dimensions: DIMS });
    const v = unit();
    index.add(1, v, "p");
    index.add(2, unit(), "p");
    expect(index.remove(1)).toBe(true);
    expect(index.remove(1)).toBe(false);
    expect(index.search(v, "p", 5).map((h) => h.id)).toEqual([2]);
    index.add(1, v, "p"); // a deleted label can come back
    expect(index.search(v, "p", 1)[0]?.id).toBe(1);
  });

  test("past 30% deleted a partition rebuilds without its dead points and still answers", async () => {
    // A zero time slice yields after every point, so the changes below land mid-rebuild.
    const index = new VectorIndex({ dimensions: DIMS, rebuildMinSize: 10, rebuildSliceMs: 0, flatMax: 0 });
    const vs = Array.from({ length: 100 }, unit);
    vs.forEach((v, i) => index.add(i, v, "p"));
    for (let i = 0; i < 30; i++) index.remove(i);
    expect(index.deletedShare("p")).toBeCloseTo(0.3, 5); // at the limit, not past it
    index.remove(30);
    // Let the rebuild copy a few points (31, 32, ...), then change the partition under it: an add,
    // the removal of a point already copied, the removal of one not yet copied.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    index.add(500, vs[0]!, "p");
    index.remove(31);
    index.remove(99);
    await index.settled();
    expect(index.deletedShare("p")).toBeLessThan(0.05);
    expect(index.search(vs[0]!, "p", 1)[0]?.id).toBe(500);
    expect(index.search(vs[50]!, "p", 1)[0]?.id).toBe(50);
    expect(index.search(vs[31]!, "p", 1)[0]?.id).not.toBe(31);
    expect(index.search(vs[99]!, "p", 1)[0]?.id).not.toBe(99);
    expect(index.size).toBe(68);
  });

  test("an emptied partition is dropped", () => {
    const index = new VectorIndex({ dimensions: DIMS });
    index.add(1, unit(), "p");
    index.remove(1);
    expect(index.partitionKeys()).toEqual([]);
  });
});

// Flat partitions are packed in one file; each graph has its own.
describe.each([["flat", 1024, 1], ["graph", 0, 2]] as const)("vector index persistence, %s partitions (4.13: kept in the data directory, rebuilt when missing or corrupt)", (_kind, flatMax, files) => {
  function filled(): { index: VectorIndex; vs: Float32Array[] } {
    const index = new VectorIndex({ dimensions: DIMS, tag: "test-embedder", flatMax });
    const vs = Array.from({ length: 40 }, unit);
    vs.forEach((v, i) => index.add(i, v, i % 2 === 0 ? "even" : "odd"));
    index.remove(4);
    return { index, vs };
  }

  test("save then load gives the same answers, deletes included", () => {
    const dir = tempDir();
    const { index, vs } = filled();
    index.save(dir);
    const loaded = new VectorIndex({ dimensions: DIMS, tag: "test-embedder", flatMax });
    expect(loaded.load(dir)).toBe(true);
    expect(loaded.size).toBe(39);
    expect(loaded.partitionKeys().sort()).toEqual(["even", "odd"]);
    expect(loaded.search(vs[6]!, "even", 1)[0]?.id).toBe(6);
    expect(loaded.search(vs[7]!, "even", 1)[0]?.id).not.toBe(7);
    expect(loaded.search(vs[4]!, "even", 1)[0]?.id).not.toBe(4);
    loaded.add(100, vs[4]!, "even"); // and it keeps working after the load
    expect(loaded.search(vs[4]!, "even", 1)[0]?.id).toBe(100);
  });

  test("a second save replaces the first and leaves no stale files", () => {
    const dir = tempDir();
    const { index } = filled();
    index.save(dir);
    index.remove(1);
    index.save(dir);
    expect(readdirSync(dir).filter((f) => f.startsWith("part-")).length).toBe(files);
    const loaded = new VectorIndex({ dimensions: DIMS, tag: "test-embedder", flatMax });
    expect(loaded.load(dir)).toBe(true);
    expect(loaded.size).toBe(38);
  });

  test("missing, corrupt, truncated or foreign files load as false and leave the index empty", () => {
    const load = (dir: string, tag = "test-embedder"): [boolean, number] => {
      const idx = new VectorIndex({ dimensions: DIMS, tag });
      idx.add(999, unit(), "stale");
      return [idx.load(dir), idx.size];
    };
    expect(load(tempDir())).toEqual([false, 0]);

    const corrupt = tempDir();
    filled().index.save(corrupt);
    const part = readdirSync(corrupt).find((f) => f.startsWith("part-"))!;
    writeFileSync(join(corrupt, part), Buffer.alloc(64, 7));
    expect(load(corrupt)).toEqual([false, 0]);

    const truncated = tempDir();
    filled().index.save(truncated);
    truncateSync(join(truncated, readdirSync(truncated).find((f) => f.startsWith("part-"))!), 100);
    expect(load(truncated)).toEqual([false, 0]);

    const badManifest = tempDir();
    filled().index.save(badManifest);
    writeFileSync(join(badManifest, "manifest.json"), "{not json");
    expect(load(badManifest)).toEqual([false, 0]);

    const otherEmbedder = tempDir();
    filled().index.save(otherEmbedder);
    expect(load(otherEmbedder, "another-embedder")).toEqual([false, 0]);
  });
});
