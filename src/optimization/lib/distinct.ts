// Distinct substrings of one text in first-seen order, for the preserve gate's fact scan: a repeat is
// found by a hash taken in the scan and a compare in place, so it is never sliced or hashed again.

export const SEED = 0x811c9dc5 | 0;
export const PRIME = 16777619;

export class Distinct {
  readonly list: string[] = [];
  private readonly byHash = new Map<number, string>();
  /** Strings whose hash another string holds (rare). */
  private other: Set<string> | null = null;

  /** text[from, to) as one fact. */
  addRange(text: string, from: number, to: number): void {
    let h = SEED;
    for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), PRIME);
    this.addHashed(text, from, to, h);
  }

  /** text[from, to) whose hash the caller took on its way (hashStep from SEED over each unit). */
  addHashed(text: string, from: number, to: number, hash: number): void {
    const h = Math.imul(hash ^ (to - from), PRIME);
    const seen = this.byHash.get(h);
    if (seen === undefined) {
      const s = text.slice(from, to);
      this.byHash.set(h, s);
      this.list.push(s);
    } else if (seen.length !== to - from || !text.startsWith(seen, from)) this.collided(text.slice(from, to));
  }

  add(s: string): void {
    this.addRange(s, 0, s.length);
  }

  private collided(s: string): void {
    const other = (this.other ??= new Set());
    if (other.has(s)) return;
    other.add(s);
    this.list.push(s);
  }
}
