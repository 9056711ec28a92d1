// A least-recently-used map bounded by (estimated) bytes rather than by count: cached answers
// range from a few hundred bytes to hundreds of kilobytes, so a count says nothing about memory.
// Map iteration order is insertion order, so re-inserting on a hit keeps the oldest first.

interface Slot<V> {
  value: V;
  bytes: number;
}

export class ByteLru<V> {
  private readonly slots = new Map<number, Slot<V>>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The value, now the most recently used. */
  get(id: number): V | undefined {
    const slot = this.slots.get(id);
    if (slot === undefined) return undefined;
    this.slots.delete(id);
    this.slots.set(id, slot);
    return slot.value;
  }

  has(id: number): boolean {
    return this.slots.has(id);
  }

  /** Adds or replaces; evicts the least recently used until the total fits. A value larger than
   * the whole budget is not kept (it would evict everything else for one entry). */
  set(id: number, value: V, bytes: number): boolean {
    this.delete(id);
    if (bytes > this.maxBytes) return false;
    this.slots.set(id, { value, bytes });
    this.used += bytes;
    this.evictOverBudget();
    return true;
  }

  /** Counts more bytes to a held value (what was derived from it and kept); evicts as set does,
   * the value itself too when it no longer fits alone. */
  grow(id: number, bytes: number): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    slot.bytes += bytes;
    this.used += bytes;
    this.evictOverBudget();
  }

  private evictOverBudget(): void {
    while (this.used > this.maxBytes) {
      const oldest = this.slots.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  delete(id: number): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.used -= slot.bytes;
    return true;
  }

  clear(): void {
    this.slots.clear();
    this.used = 0;
  }
}
