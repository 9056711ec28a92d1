// The native vector-index addon loads by its direct path and answers nearest-neighbour queries.
import { describe, expect, test } from "bun:test";
import { hnswSelfCheck, loadHnsw } from "../../src/cache/hnsw-addon.ts";

describe('hnswlib-node addon (semantic cache foundation, docs/semantic-cache.md "Vector index")', () => {
  test("self check passes", () => {
    expect(hnswSelfCheck()).toBe(true);
  });

  test("finds the nearest of 500 random unit vectors and honours deletes", () => {
    const { HierarchicalNSW } = loadHnsw();
    const dim = 32;
    const index = new HierarchicalNSW("cosine", dim);
    index.initIndex(500);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    const points = Array.from({ length: 500 }, () => Array.from({ length: dim }, rand));
    points.forEach((p, i) => index.addPoint(p, i));
    expect(index.getCurrentCount()).toBe(500);
    const target = points[123]!;
    expect(index.searchKnn(target, 1).neighbors[0]).toBe(123);
    index.markDelete(123);
    expect(index.searchKnn(target, 1).neighbors[0]).not.toBe(123);
  });
});
