// Distinct substrings of one text in first-seen order, for the preserve gate's fact scan: a repeat is
// found by a hash taken in the scan and a compare in place, so it is never sliced or hashed again.

export const SEED = 0x811c9dc5 | 0;
export const PRIME = 16777619;

export class Distinct {
  readonly list: string[] = [];
  // Open addressing: the hash of each entry, and 1 + its index in `list` (0: empty).
  private hashes = new Int32Array(64);
  private slots = new Int32Array(64);
  private mask = 63;

  /** text[from, to) as one fact. */
  addRange(text: string, from: number, to: number): void {
    let h = SEED;
    for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), PRIME);
    this.addHashed(text, from, to, h);
  }

  /** text[from, to) whose hash the caller took on its way (from SEED, h = imul(h ^ unit, PRIME)). */
  addHashed(text: string, from: number, to: number, hash: number): void {
    const len = to - from;
    const h = Math.imul(hash ^ len, PRIME);
    const list = this.list;
    let k = h & this.mask;
    for (let slot = this.slots[k]!; slot !== 0; slot = this.slots[k]!) {
      if (this.hashes[k] === h) {
        const seen = list[slot - 1]!;
        if (seen.length === len && text.startsWith(seen, from)) return;
      }
      k = (k + 1) & this.mask;
    }
    list.push(text.slice(from, to));
    this.hashes[k] = h;
    this.slots[k] = list.length;
    if (list.length * 2 > this.mask) this.grow();
  }

  add(s: string): void {
    this.addRange(s, 0, s.length);
  }

  private grow(): void {
    const size = (this.mask + 1) * 2;
    const hashes = new Int32Array(size);
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let k = 0; k <= this.mask; k++) {
      const slot = this.slots[k]!;
      if (slot === 0) continue;
      let j = this.hashes[k]! & mask;
      while (slots[j] !== 0) j = (j + 1) & mask;
      hashes[j] = this.hashes[k]!;
      slots[j] = slot;
    }
    (this.hashes = hashes), (this.slots = slots), (this.mask = mask);
  }
}
