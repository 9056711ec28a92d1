// The semantic cache's vector index (gateway-api.md 4.13, issue 7 item 4): one HNSW graph per cache
// scope, created on first use, so a hit can only come from the same project, scope, user, system
// prompt, tools and versions. Deletes are soft (TTL expiry, invalidation) and a graph rebuilds once
// too many of its points are deleted. Persisted by vector-index-files.ts.
import { loadIndex, saveIndex } from "./vector-index-files.ts";
import { Partition, newGraph, type HnswParams } from "./vector-partition.ts";

export interface VectorHit {
  id: number;
  /** Cosine similarity, 1 = same direction. */
  similarity: number;
}

export interface VectorIndexOptions extends Partial<HnswParams> {
  dimensions: number;
  /** Rebuild a graph once deleted points exceed this share of it. */
  rebuildDeletedShare?: number;
  /** Graphs smaller than this are never rebuilt: their dead weight is negligible. */
  rebuildMinSize?: number;
  /** Names what produced the vectors (embedder and size): a saved index with another tag is not loaded. */
  tag?: string;
}

const DEFAULTS = { m: 16, efConstruction: 100, efSearch: 64, initialCapacity: 256, rebuildSliceMs: 8, rebuildDeletedShare: 0.3, rebuildMinSize: 64 };
/** hnswlib-node takes labels as unsigned 32-bit integers. */
const MAX_ID = 0xffffffff;

export class VectorIndex {
  readonly params: HnswParams;
  readonly tag: string;
  private readonly rebuildShare: number;
  private readonly rebuildMinSize: number;
  private partitions = new Map<string, Partition>();
  /** id -> the partition holding it, so remove() needs only the id. */
  private where = new Map<number, string>();
  private pending = new Set<Promise<void>>();

  constructor(options: VectorIndexOptions) {
    const o = { ...DEFAULTS, ...options };
    this.params = { dimensions: o.dimensions, m: o.m, efConstruction: o.efConstruction, efSearch: o.efSearch, initialCapacity: o.initialCapacity, rebuildSliceMs: o.rebuildSliceMs };
    this.rebuildShare = o.rebuildDeletedShare;
    this.rebuildMinSize = o.rebuildMinSize;
    this.tag = o.tag ?? `dims-${o.dimensions}`;
  }

  get size(): number {
    return this.where.size;
  }

  partitionKeys(): string[] {
    return [...this.partitions.keys()];
  }

  /** Adds or replaces `id`; an id lives in one partition at a time. */
  add(id: number, vector: ArrayLike<number>, partition: string): void {
    if (!Number.isInteger(id) || id < 0 || id > MAX_ID) throw new RangeError(`vector id must be an integer in 0..${MAX_ID}, got ${id}`);
    if (vector.length !== this.params.dimensions) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.params.dimensions}`);
    const current = this.where.get(id);
    if (current !== undefined && current !== partition) this.remove(id);
    let p = this.partitions.get(partition);
    if (p === undefined) {
      p = new Partition(this.params, newGraph(this.params, this.params.initialCapacity));
      this.partitions.set(partition, p);
    }
    p.add(id, Array.from(vector));
    this.where.set(id, partition);
  }

  /** The `k` nearest live vectors of `partition`, most similar first. */
  search(vector: ArrayLike<number>, partition: string, k = 1): VectorHit[] {
    if (vector.length !== this.params.dimensions) return [];
    return this.partitions.get(partition)?.search(Array.from(vector), k) ?? [];
  }

  /** Soft delete; false when the id is not in the index. */
  remove(id: number): boolean {
    const key = this.where.get(id);
    if (key === undefined) return false;
    this.where.delete(id);
    const p = this.partitions.get(key);
    if (p === undefined || !p.remove(id)) return false;
    if (p.live.size === 0) {
      this.partitions.delete(key); // an empty scope costs nothing until it is used again
      return true;
    }
    const rebuild = p.maybeRebuild(this.rebuildShare, this.rebuildMinSize);
    this.pending.add(rebuild);
    void rebuild.finally(() => this.pending.delete(rebuild));
    return true;
  }

  /** Resolves when every rebuild started so far has finished (tests, shutdown before save). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Deleted points per partition, for metrics and tests. */
  deletedShare(partition: string): number {
    const p = this.partitions.get(partition);
    return p === undefined || p.size === 0 ? 0 : p.deleted.size / p.size;
  }

  /** Writes the index under `dir` (blocking; wait for settled() first to save rebuilt graphs). */
  save(dir: string): void {
    saveIndex(this, dir, this.tag);
  }

  /** Loads what save() wrote; false when missing, corrupt or of another tag: rebuild from the store. */
  load(dir: string): boolean {
    return loadIndex(this, dir, this.tag);
  }

  clear(): void {
    this.partitions = new Map();
    this.where = new Map();
  }

  /** For vector-index-files.ts: the partitions as they are, and a way to put loaded ones in place. */
  entries(): IterableIterator<[string, Partition]> {
    return this.partitions.entries();
  }

  replaceAll(partitions: Map<string, Partition>): void {
    this.clear();
    this.partitions = partitions;
    for (const [key, p] of partitions) for (const id of p.live) this.where.set(id, key);
  }
}
