// A small partition of the semantic index (docs/semantic-cache.md "Memory"): unit vectors in one
// Float32Array searched exhaustively, since an hnswlib graph costs ~2.6 MB before its first point.
// Cosine similarity, as hnswlib's "cosine" space computes it.

export interface Hit {
  id: number;
  similarity: number;
}

/** Bookkeeping per entry beyond its floats: the id -> slot map, the slot -> id array, the index's
 * id -> partition map (measured roughly; the budget is an estimate, not an allocator). */
export const ENTRY_OVERHEAD_BYTES = 96;
/** Per partition: its objects, the empty maps and typed-array headers, the key in two maps
 * (measured: 10,000 one-entry 512-dim scopes took 44 MiB of RSS). */
const PARTITION_OVERHEAD_BYTES = 2400;

export class FlatPartition {
  private vectors: Float32Array;
  private readonly slotIds: number[] = [];
  private readonly slots = new Map<number, number>();
  /** Ids added or updated while a promotion to a graph runs (vector-index.ts). */
  dirty: Set<number> | null = null;

  constructor(readonly dimensions: number, capacity = 1) {
    this.vectors = new Float32Array(Math.max(1, capacity) * dimensions);
  }

  get count(): number {
    return this.slotIds.length;
  }

  has(id: number): boolean {
    return this.slots.has(id);
  }

  ids(): IterableIterator<number> {
    return this.slots.keys();
  }

  /** Estimated bytes held, for the index's budgets. */
  bytes(): number {
    return this.vectors.byteLength + this.count * ENTRY_OVERHEAD_BYTES + PARTITION_OVERHEAD_BYTES;
  }

  add(id: number, vector: ArrayLike<number>): void {
    this.dirty?.add(id);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.slotIds.length;
      if ((slot + 1) * this.dimensions > this.vectors.length) {
        const grown = new Float32Array(this.vectors.length * 2);
        grown.set(this.vectors);
        this.vectors = grown;
      }
      this.slotIds.push(id);
      this.slots.set(id, slot);
    }
    let norm = 0;
    for (let i = 0; i < this.dimensions; i++) norm += vector[i]! * vector[i]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const at = slot * this.dimensions;
    for (let i = 0; i < this.dimensions; i++) this.vectors[at + i] = vector[i]! * scale;
  }

  /** Hard delete: the last vector moves into the freed slot; shrinks when a quarter full. */
  remove(id: number): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    const last = this.slotIds.length - 1;
    const lastId = this.slotIds.pop()!;
    if (slot !== last) {
      this.vectors.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.slotIds[slot] = lastId;
      this.slots.set(lastId, slot);
    }
    const capacity = this.vectors.length / this.dimensions;
    if (capacity >= 8 && this.count <= capacity / 4) this.vectors = this.vectors.slice(0, (capacity / 2) * this.dimensions);
    return true;
  }

  /** The stored (unit) vector of `id`; a view, copy it before the partition changes. */
  vectorOf(id: number): Float32Array | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.vectors.subarray(slot * this.dimensions, (slot + 1) * this.dimensions);
  }

  /** The `k` most similar, best first; ties keep insertion order. */
  search(query: ArrayLike<number>, k: number): Hit[] {
    const n = this.count;
    if (n === 0 || k <= 0) return [];
    const d = this.dimensions;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += query[i]! * query[i]!;
    if (norm === 0) return [];
    const q = new Float32Array(d);
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < d; i++) q[i] = query[i]! * scale;
    const best: Hit[] = [];
    const v = this.vectors;
    for (let s = 0; s < n; s++) {
      let dot = 0;
      const at = s * d;
      for (let i = 0; i < d; i++) dot += q[i]! * v[at + i]!;
      if (best.length === k && dot <= best[k - 1]!.similarity) continue;
      // k is small (the cache asks for 5): an insertion into a sorted array beats a heap.
      let i = Math.min(best.length, k - 1);
      if (best.length < k) best.push({ id: 0, similarity: 0 });
      while (i > 0 && best[i - 1]!.similarity < dot) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = { id: this.slotIds[s]!, similarity: dot };
    }
    return best;
  }

  /** For persistence: ids in slot order and their vectors, packed. */
  packed(): { ids: number[]; vectors: Float32Array } {
    return { ids: [...this.slotIds], vectors: this.vectors.subarray(0, this.count * this.dimensions) };
  }

  static fromPacked(dimensions: number, ids: readonly number[], vectors: Float32Array): FlatPartition {
    const p = new FlatPartition(dimensions, ids.length);
    for (let s = 0; s < ids.length; s++) p.add(ids[s]!, vectors.subarray(s * dimensions, (s + 1) * dimensions));
    return p;
  }
}
