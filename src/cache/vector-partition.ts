// One HNSW graph of the semantic index (docs/semantic-cache.md "Vector index"): the vectors of one cache scope. Grows by
// doubling, deletes softly (markDelete), and rebuilds itself without its deleted points when they
// pile up, in small slices between requests so a big rebuild never blocks the event loop for long.
import type { HierarchicalNSW } from "hnswlib-node";
import { loadHnsw } from "./hnsw-addon.ts";
import { ENTRY_OVERHEAD_BYTES, type FlatPartition } from "./vector-flat.ts";

export interface HnswParams {
  dimensions: number;
  /** Graph degree: 16 is hnswlib's recommended middle ground for 100-1000 dimensions. */
  m: number;
  efConstruction: number;
  /** Candidates examined per search; recall of the top-1 is what matters, and 64 keeps it near 1. */
  efSearch: number;
  initialCapacity: number;
  /** Milliseconds of re-inserting per slice of an asynchronous rebuild, before yielding to requests
   * (an insert costs about a millisecond at 512 dimensions). */
  rebuildSliceMs: number;
}

const SEED = 100;
/** What an empty hnswlib graph costs (measured: 2.6 MB, mostly its 65,536 label mutexes). */
export const GRAPH_FIXED_BYTES = 2_700_000;

export function newGraph(p: HnswParams, capacity: number): HierarchicalNSW {
  const graph = new (loadHnsw().HierarchicalNSW)("cosine", p.dimensions);
  graph.initIndex(capacity, p.m, p.efConstruction, SEED);
  graph.setEf(p.efSearch);
  return graph;
}

export class Partition {
  /** Labels searchable now; the graph also holds the deleted ones until a rebuild. */
  readonly live = new Set<number>();
  /** Labels marked deleted in the graph: re-adding one unmarks it in hnswlib. */
  readonly deleted = new Set<number>();
  private rebuilding: Promise<void> | null = null;
  /** Labels added or updated while a rebuild runs: copied again before the swap. */
  private dirty: Set<number> | null = null;

  constructor(
    private readonly params: HnswParams,
    public graph: HierarchicalNSW,
  ) {}

  /** Points the graph holds, deleted ones included. */
  get size(): number {
    return this.live.size + this.deleted.size;
  }

  get count(): number {
    return this.live.size;
  }

  has(id: number): boolean {
    return this.live.has(id);
  }

  ids(): IterableIterator<number> {
    return this.live.values();
  }

  /** Estimated bytes held, for the index's budgets: hnswlib's fixed cost per graph, then per slot
   * its vector, level-0 links (2m), label and lookup entry (docs/semantic-cache.md "Memory"). */
  bytes(): number {
    const perSlot = this.params.dimensions * 4 + this.params.m * 2 * 4 + 64;
    return GRAPH_FIXED_BYTES + this.graph.getMaxElements() * perSlot + this.size * ENTRY_OVERHEAD_BYTES;
  }

  add(id: number, vector: ArrayLike<number>): void {
    this.dirty?.add(id);
    // hnswlib updates a label it holds in place (and unmarks it if it was deleted).
    const held = this.live.has(id) || this.deleted.delete(id);
    if (!held && this.graph.getCurrentCount() >= this.graph.getMaxElements()) {
      this.graph.resizeIndex(Math.max(this.params.initialCapacity, this.graph.getMaxElements() * 2));
    }
    this.graph.addPoint(Array.from(vector), id);
    this.live.add(id);
  }

  remove(id: number): boolean {
    if (!this.live.delete(id)) return false;
    this.graph.markDelete(id);
    this.deleted.add(id);
    return true;
  }

  search(vector: ArrayLike<number>, k: number): { id: number; similarity: number }[] {
    const n = Math.min(k, this.live.size);
    if (n === 0) return [];
    if (this.graph.getEf() < n) this.graph.setEf(n);
    const found = this.graph.searchKnn(Array.from(vector), n);
    // Cosine space: distance = 1 - cosine similarity.
    return found.neighbors.map((id, i) => ({ id, similarity: 1 - (found.distances[i] ?? 1) }));
  }

  /** Rebuilds when deleted points are more than `share` of the graph; resolves when done. */
  maybeRebuild(share: number, minSize: number): Promise<void> {
    if (this.rebuilding !== null) return this.rebuilding;
    if (this.size < minSize || this.deleted.size <= share * this.size) return Promise.resolve();
    this.rebuilding = this.rebuild().finally(() => {
      this.rebuilding = null;
    });
    return this.rebuilding;
  }

  /** Copies the live points into a fresh graph, a slice per macrotask. Adds and removes that arrive
   * meanwhile go to the old graph, which keeps answering searches, and are replayed before the swap. */
  private async rebuild(): Promise<void> {
    const old = this.graph;
    const labels = [...this.live];
    // Room for a quarter more before the first doubling.
    const fresh = newGraph(this.params, Math.max(this.params.initialCapacity, Math.ceil(labels.length * 1.25)));
    const copied = new Set<number>();
    this.dirty = new Set();
    try {
      await this.copyAndSwap(old, fresh, labels, copied);
    } finally {
      this.dirty = null;
    }
  }

  private async copyAndSwap(old: HierarchicalNSW, fresh: HierarchicalNSW, labels: number[], copied: Set<number>): Promise<void> {
    let sliceStart = performance.now();
    for (const id of labels) {
      if (performance.now() - sliceStart >= this.params.rebuildSliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      if (!this.live.has(id)) continue;
      fresh.addPoint(old.getPoint(id), id);
      copied.add(id);
    }
    // Replay: points added or updated during the rebuild, and those deleted after being copied.
    const dirty = this.dirty ?? new Set<number>();
    if (fresh.getMaxElements() < this.live.size + copied.size) fresh.resizeIndex((this.live.size + copied.size) * 2);
    for (const id of this.live) if (!copied.has(id) || dirty.has(id)) fresh.addPoint(old.getPoint(id), id);
    this.deleted.clear();
    for (const id of copied) {
      if (this.live.has(id)) continue;
      fresh.markDelete(id);
      this.deleted.add(id);
    }
    this.graph = fresh;
  }
}

/** Builds a graph holding a flat partition's vectors, in slices between requests. The flat one keeps
 * serving and changing meanwhile (its `dirty` set records updates); the changes are replayed before
 * the graph is returned, so the caller can swap it in at once. */
export async function graphFromFlat(params: HnswParams, flat: FlatPartition): Promise<Partition> {
  const labels = [...flat.ids()];
  const p = new Partition(params, newGraph(params, Math.max(params.initialCapacity, Math.ceil(labels.length * 1.25))));
  flat.dirty = new Set();
  try {
    let sliceStart = performance.now();
    for (const id of labels) {
      if (performance.now() - sliceStart >= params.rebuildSliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const v = flat.vectorOf(id);
      if (v) p.add(id, v);
    }
    for (const id of flat.dirty) {
      const v = flat.vectorOf(id);
      if (v) p.add(id, v);
    }
    for (const id of [...p.live]) if (!flat.has(id)) p.remove(id);
  } finally {
    flat.dirty = null;
  }
  return p;
}
