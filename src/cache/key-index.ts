// Every live cache key in memory (docs/cache.md "Storage"), so a miss never touches SQLite: keys,
// project numbers, ids and expiries sit in typed arrays behind an open-addressing table, 60 to 90
// bytes per key rather than ~220 for a Map of strings (bench/cache/key-index-memory.ts).
import { keyWords, KEY_WORDS } from "./key-words.ts";

export interface IndexedKey {
  id: number;
  expiresAt: number;
}

const EMPTY = -1;
const MAX_LOAD = 0.75;
/** Set on the project number of keys that were hashed rather than parsed (see key-words.ts), so
 * a raw key never meets the hex key that happens to spell its digest. */
const HASHED = 0x8000_0000;

export class KeyIndex {
  private readonly projectNos = new Map<string, number>();
  /** Open addressing, linear probing: each bucket holds a dense position or EMPTY. */
  private buckets = new Int32Array(1024).fill(EMPTY);
  private mask = 1023;
  // Dense columns, `count` entries long; a removal moves the last entry into the hole.
  private words = new Uint32Array(512 * KEY_WORDS);
  private projects = new Uint32Array(512);
  private ids = new Float64Array(512);
  private expiries = new Float64Array(512);
  private count = 0;
  private readonly probe = new Uint32Array(KEY_WORDS);
  /** The project number of the key in `probe` (with HASHED when it was hashed). */
  private probeProject = 0;
  /** The bucket where the last lookup ended (its match, or the empty bucket to insert into). */
  private bucket = 0;

  get size(): number {
    return this.count;
  }

  /** Sizes the columns and table for `n` keys at once (the load at start knows the count). */
  reserve(n: number): void {
    if (n > this.ids.length) this.growColumns(n);
    let size = this.mask + 1;
    while (n > size * MAX_LOAD) size *= 2;
    if (size !== this.mask + 1) this.rehash(size);
  }

  /** The entry held for this key, expired or not; undefined when none. */
  find(projectId: string, key: string): IndexedKey | undefined {
    const pos = this.lookup(projectId, key, false);
    return pos < 0 ? undefined : { id: this.ids[pos]!, expiresAt: this.expiries[pos]! };
  }

  /** True when this key currently maps to this id (an older, replaced id is not live). */
  holds(projectId: string, key: string, id: number): boolean {
    const pos = this.lookup(projectId, key, false);
    return pos >= 0 && this.ids[pos] === id;
  }

  /** Maps the key to a new entry; returns the id it replaced, if any. */
  set(projectId: string, key: string, id: number, expiresAt: number): number | undefined {
    if (this.count + 1 > (this.mask + 1) * MAX_LOAD) this.rehash((this.mask + 1) * 2);
    if (this.count === this.ids.length) this.growColumns();
    const pos = this.lookup(projectId, key, true);
    if (pos >= 0) {
      const old = this.ids[pos]!;
      this.ids[pos] = id;
      this.expiries[pos] = expiresAt;
      return old;
    }
    const at = this.count++;
    this.words.set(this.probe, at * KEY_WORDS);
    this.projects[at] = this.probeProject;
    this.ids[at] = id;
    this.expiries[at] = expiresAt;
    this.buckets[this.bucket] = at;
    return undefined;
  }

  /** Removes the key only while it still maps to `id`; returns the removed entry's expiry. */
  remove(projectId: string, key: string, id: number): number | undefined {
    const pos = this.lookup(projectId, key, false);
    if (pos < 0 || this.ids[pos] !== id) return undefined;
    const expiresAt = this.expiries[pos]!;
    this.removeAt(this.bucket, pos);
    return expiresAt;
  }

  /** Removes every key of the project (a scan: this is `all` invalidation); returns what went. */
  removeProject(projectId: string): IndexedKey[] {
    const no = this.projectNos.get(projectId);
    if (no === undefined) return [];
    const removed: IndexedKey[] = [];
    // Downwards: the entry a removal moves into the hole comes from above, already looked at.
    for (let pos = this.count - 1; pos >= 0; pos--) {
      if ((this.projects[pos]! & ~HASHED) !== no) continue;
      removed.push({ id: this.ids[pos]!, expiresAt: this.expiries[pos]! });
      this.removeAt(this.bucketOf(pos), pos);
    }
    return removed;
  }

  /** Fills `probe`/`probeProject` and returns the dense position of the key, or -1. */
  private lookup(projectId: string, key: string, create: boolean): number {
    let no = this.projectNos.get(projectId);
    if (no === undefined) {
      if (!create) return -1;
      no = this.projectNos.size + 1;
      this.projectNos.set(projectId, no);
    }
    this.probeProject = keyWords(key, this.probe) ? no : (no | HASHED) >>> 0;
    let b = this.home(this.probe[0]!, this.probeProject);
    for (;;) {
      const pos = this.buckets[b]!;
      if (pos === EMPTY || this.matches(pos)) {
        this.bucket = b;
        return pos;
      }
      b = (b + 1) & this.mask;
    }
  }

  private matches(pos: number): boolean {
    if (this.projects[pos] !== this.probeProject) return false;
    const base = pos * KEY_WORDS;
    for (let i = 0; i < KEY_WORDS; i++) if (this.words[base + i] !== this.probe[i]) return false;
    return true;
  }

  /** sha256 words are uniform: the first one, mixed with the project, is the hash. */
  private home(word0: number, project: number): number {
    return (word0 ^ Math.imul(project, 0x9e3779b1)) & this.mask;
  }

  private homeOf(pos: number): number {
    return this.home(this.words[pos * KEY_WORDS]!, this.projects[pos]!);
  }

  private bucketOf(pos: number): number {
    let b = this.homeOf(pos);
    while (this.buckets[b] !== pos) b = (b + 1) & this.mask;
    return b;
  }

  private removeAt(bucket: number, pos: number): void {
    this.clearBucket(bucket);
    const last = --this.count;
    if (pos === last) return;
    this.buckets[this.bucketOf(last)] = pos;
    this.words.copyWithin(pos * KEY_WORDS, last * KEY_WORDS, (last + 1) * KEY_WORDS);
    this.projects[pos] = this.projects[last]!;
    this.ids[pos] = this.ids[last]!;
    this.expiries[pos] = this.expiries[last]!;
  }

  /** Backward-shift deletion: later entries of the probe run move up, so no tombstones pile up. */
  private clearBucket(i: number): void {
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & this.mask;
      const pos = this.buckets[j]!;
      if (pos === EMPTY) break;
      const k = this.homeOf(pos);
      const stays = hole <= j ? k > hole && k <= j : k > hole || k <= j;
      if (stays) continue;
      this.buckets[hole] = pos;
      hole = j;
    }
    this.buckets[hole] = EMPTY;
  }

  private rehash(size: number): void {
    this.buckets = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    for (let pos = 0; pos < this.count; pos++) {
      let b = this.homeOf(pos);
      while (this.buckets[b] !== EMPTY) b = (b + 1) & this.mask;
      this.buckets[b] = pos;
    }
  }

  private growColumns(size = Math.ceil(this.ids.length * 1.5)): void {
    this.words = copyInto(new Uint32Array(size * KEY_WORDS), this.words);
    this.projects = copyInto(new Uint32Array(size), this.projects);
    this.ids = copyInto(new Float64Array(size), this.ids);
    this.expiries = copyInto(new Float64Array(size), this.expiries);
  }
}

function copyInto<T extends Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(to: T, from: T): T {
  to.set(from);
  return to;
}
