// The semantic cache's vector index (docs/semantic-cache.md "Vector index", "Memory"): one partition
// per cache scope, flat until `flatMax` entries and then an HNSW graph; memory capped per project
// and in total, least recently used partitions dropped whole.
import { FlatPartition } from "./vector-flat.ts";
import { loadIndex, saveIndex, type Slot } from "./vector-index-files.ts";
import { Partition, graphFromFlat, newGraph, type HnswParams } from "./vector-partition.ts";

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
  /** Entries a partition holds flat before it becomes a graph; 0: graphs from the first entry. */
  flatMax?: number;
  /** Estimated bytes the whole index may hold (GW_SEMANTIC_INDEX_MB). */
  maxBytes?: number;
  /** Estimated bytes one project's partitions may hold (GW_SEMANTIC_INDEX_PROJECT_MB). */
  maxProjectBytes?: number;
}


export interface IndexStats {
  entries: number;
  partitions: number;
  /** Partitions held as HNSW graphs (the others are flat). */
  graphs: number;
  projects: number;
  /** Estimated bytes, what the caps compare. */
  bytes: number;
  evictions: number;
}

const DEFAULTS = { m: 16, efConstruction: 100, efSearch: 64, initialCapacity: 256, rebuildSliceMs: 8, rebuildDeletedShare: 0.3, rebuildMinSize: 64, flatMax: 1024 };
/** hnswlib-node takes labels as unsigned 32-bit integers. */
const MAX_ID = 0xffffffff;

export class VectorIndex {
  readonly params: HnswParams;
  readonly tag: string;
  /** The highest answer-store id the index has been given (saved with it; semantic-cache.ts
   * reconciles entries above it after an unclean stop). */
  watermark = 0;
  /** Partitions dropped to stay within a cap, since start. */
  evictions = 0;
  private readonly rebuildShare: number;
  private readonly rebuildMinSize: number;
  private readonly flatMax: number;
  private readonly maxBytes: number;
  private readonly maxProjectBytes: number;
  /** Least recently used first (Map order; a use re-inserts). */
  private partitions = new Map<string, Slot>();
  /** The same slots per project, in the same order, so a project's cap evicts its own. */
  private projects = new Map<string, { bytes: number; order: Map<string, Slot> }>();
  /** id -> the partition holding it, so remove() needs only the id. */
  private where = new Map<number, string>();
  private totalBytes = 0;
  private pending = new Set<Promise<void>>();

  constructor(options: VectorIndexOptions) {
    const o = { ...DEFAULTS, ...options };
    this.params = { dimensions: o.dimensions, m: o.m, efConstruction: o.efConstruction, efSearch: o.efSearch, initialCapacity: o.initialCapacity, rebuildSliceMs: o.rebuildSliceMs };
    this.rebuildShare = o.rebuildDeletedShare;
    this.rebuildMinSize = o.rebuildMinSize;
    this.flatMax = o.flatMax;
    this.maxBytes = o.maxBytes ?? Infinity;
    this.maxProjectBytes = o.maxProjectBytes ?? Infinity;
    this.tag = o.tag ?? `dims-${o.dimensions}`;
  }

  get size(): number {
    return this.where.size;
  }

  /** Sizes for metrics, tests and the bench: estimated bytes, partitions, graphs, evictions. */
  stats(): IndexStats {
    let graphs = 0;
    for (const s of this.partitions.values()) if (s.part instanceof Partition) graphs++;
    return { entries: this.where.size, partitions: this.partitions.size, graphs, projects: this.projects.size, bytes: this.totalBytes, evictions: this.evictions };
  }

  projectBytes(project: string): number {
    return this.projects.get(project)?.bytes ?? 0;
  }

  partitionKeys(): string[] {
    return [...this.partitions.keys()];
  }

  /** Adds or replaces `id`; an id lives in one partition at a time. May evict partitions. */
  add(id: number, vector: ArrayLike<number>, partition: string, project = ""): void {
    if (!Number.isInteger(id) || id < 0 || id > MAX_ID) throw new RangeError(`vector id must be an integer in 0..${MAX_ID}, got ${id}`);
    if (vector.length !== this.params.dimensions) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.params.dimensions}`);
    if (id > this.watermark) this.watermark = id;
    const current = this.where.get(id);
    if (current !== undefined && current !== partition) this.remove(id);
    let slot = this.touch(partition);
    if (slot === undefined) {
      const part = this.flatMax > 0 ? new FlatPartition(this.params.dimensions) : new Partition(this.params, newGraph(this.params, this.params.initialCapacity));
      slot = this.place(partition, { project, part, bytes: 0 });
    }
    slot.part.add(id, vector);
    this.where.set(id, partition);
    this.recount(slot);
    if (slot.part instanceof FlatPartition && slot.part.count > this.flatMax && !slot.promoting) this.promote(partition, slot, slot.part);
    this.enforce(slot.project);
  }

  /** The `k` nearest live vectors of `partition`, most similar first. */
  search(vector: ArrayLike<number>, partition: string, k = 1): VectorHit[] {
    if (vector.length !== this.params.dimensions) return [];
    return this.touch(partition)?.part.search(vector, k) ?? [];
  }

  /** Removes `id` (soft in a graph); false when the id is not in the index. */
  remove(id: number): boolean {
    const key = this.where.get(id);
    if (key === undefined) return false;
    this.where.delete(id);
    const slot = this.partitions.get(key);
    if (slot === undefined || !slot.part.remove(id)) return false;
    if (slot.part.count === 0) {
      this.drop(key, slot); // an empty scope costs nothing until it is used again
      return true;
    }
    this.recount(slot);
    if (slot.part instanceof Partition) this.track(slot.part.maybeRebuild(this.rebuildShare, this.rebuildMinSize).then(() => this.recount(slot)));
    return true;
  }

  /** Resolves when every rebuild and promotion started so far has finished (tests, shutdown before save). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Deleted points per partition (graphs only: a flat partition deletes for real). */
  deletedShare(partition: string): number {
    const p = this.partitions.get(partition)?.part;
    return !(p instanceof Partition) || p.size === 0 ? 0 : p.deleted.size / p.size;
  }

  /** Writes the index under `dir` (blocking; wait for settled() first to save rebuilt graphs).
   * `watermarkAtMost`: entries above it were stored but not indexed, so the next start embeds them. */
  save(dir: string, watermarkAtMost = Infinity): void {
    saveIndex(this, dir, this.tag, Math.min(this.watermark, watermarkAtMost));
  }

  /** Loads what save() wrote; false when missing, corrupt or of another tag: rebuild from the store. */
  load(dir: string): boolean {
    return loadIndex(this, dir, this.tag);
  }

  clear(): void {
    this.partitions = new Map();
    this.projects = new Map();
    this.where = new Map();
    this.totalBytes = 0;
    this.watermark = 0;
  }

  /** For vector-index-files.ts: the partitions, least recently used first, and a way to put loaded
   * ones in place (in that order; the caps apply to them too). */
  entries(): IterableIterator<[string, Slot]> {
    return this.partitions.entries();
  }

  replaceAll(slots: Map<string, Slot>, watermark: number): void {
    this.clear();
    for (const [key, slot] of slots) {
      this.place(key, slot);
      for (const id of slot.part.ids()) this.where.set(id, key);
      this.recount(slot);
    }
    for (const project of [...this.projects.keys()]) this.enforce(project);
    this.watermark = watermark;
  }

  /** Marks a partition used (most recent last); undefined when absent. */
  private touch(key: string): Slot | undefined {
    const slot = this.partitions.get(key);
    if (slot === undefined) return undefined;
    this.partitions.delete(key);
    this.partitions.set(key, slot);
    const order = this.projects.get(slot.project)!.order;
    order.delete(key);
    order.set(key, slot);
    return slot;
  }

  private place(key: string, slot: Slot): Slot {
    this.partitions.set(key, slot);
    let owner = this.projects.get(slot.project);
    if (owner === undefined) this.projects.set(slot.project, (owner = { bytes: 0, order: new Map() }));
    owner.order.set(key, slot);
    return slot;
  }

  /** Brings the byte counts up to date with what the slot holds now. */
  private recount(slot: Slot): void {
    const owner = this.projects.get(slot.project);
    if (owner === undefined || slot.dropped) return;
    const now = slot.part.bytes();
    this.totalBytes += now - slot.bytes;
    owner.bytes += now - slot.bytes;
    slot.bytes = now;
  }

  /** Past a cap, the least recently used partitions go: the project's own first, then anyone's. */
  private enforce(project: string): void {
    const owner = this.projects.get(project);
    while (owner !== undefined && owner.bytes > this.maxProjectBytes && owner.order.size > 0) this.evict(owner.order.keys().next().value!);
    while (this.totalBytes > this.maxBytes && this.partitions.size > 0) this.evict(this.partitions.keys().next().value!);
  }

  private evict(key: string): void {
    const slot = this.partitions.get(key);
    if (slot === undefined) return;
    this.evictions++;
    for (const id of slot.part.ids()) if (this.where.get(id) === key) this.where.delete(id);
    this.drop(key, slot);
  }

  private drop(key: string, slot: Slot): void {
    this.partitions.delete(key);
    const owner = this.projects.get(slot.project)!;
    owner.order.delete(key);
    owner.bytes -= slot.bytes;
    this.totalBytes -= slot.bytes;
    slot.bytes = 0;
    slot.dropped = true;
    if (owner.order.size === 0) this.projects.delete(slot.project);
  }

  /** A flat partition past flatMax becomes a graph, built off the request path; it keeps serving flat meanwhile. */
  private promote(key: string, slot: Slot, flat: FlatPartition): void {
    slot.promoting = true;
    this.track(graphFromFlat(this.params, flat).then((graph) => {
      slot.promoting = false;
      if (this.partitions.get(key) !== slot || slot.part !== flat) return; // evicted or emptied meanwhile
      slot.part = graph;
      this.recount(slot);
      this.enforce(slot.project);
    }, () => {
      slot.promoting = false; // stays flat; the next add past flatMax tries again
    }));
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
