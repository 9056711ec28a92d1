// Fixed log-spaced histogram of millisecond durations (docs/observability.md "GET /v1/metrics"):
// every histogram shares the same buckets, so rollups add bucket by bucket; a percentile is within
// 4% of the exact one (exact below 32 ms, capped at one hour).

const EXACT = 32;
const GROWTH = 0.08;
const MAX_MS = 3_600_000;

/** Lower bounds (inclusive, integer ms) of every bucket, ascending. */
const LOWER: number[] = (() => {
  const bounds: number[] = [];
  for (let v = 0; v < EXACT; v++) bounds.push(v);
  for (let v = EXACT; v < MAX_MS; v += Math.max(1, Math.floor(v * GROWTH))) bounds.push(v);
  bounds.push(MAX_MS);
  return bounds;
})();

export const HISTOGRAM_BUCKETS = LOWER.length;

/** The bucket of a duration in ms (rounded; negative counts as 0). */
export function bucketOf(ms: number): number {
  const v = Math.max(0, Math.round(ms));
  if (v < EXACT) return v;
  if (v >= MAX_MS) return LOWER.length - 1;
  // Largest bound <= v.
  let lo = EXACT;
  let hi = LOWER.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (LOWER[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The value reported for a bucket: the middle of its integer range, rounded. */
export function bucketValue(index: number): number {
  const lower = LOWER[index]!;
  if (index >= LOWER.length - 1) return lower;
  const upper = LOWER[index + 1]! - 1;
  return Math.round((lower + upper) / 2);
}

/** Dense counts, one per bucket. */
export const emptyHistogram = (): Uint32Array => new Uint32Array(HISTOGRAM_BUCKETS);

/** Nearest-rank percentile (p in 0..100) of a dense histogram; null when it is empty. */
export function percentile(counts: ArrayLike<number>, p: number): number | null {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return bucketValue(i);
  }
  return bucketValue(counts.length - 1);
}

/** Stored form: (bucket, count) pairs of the non-empty buckets only, as little-endian uint32s (a
 * minute's latencies fill a few dozen of the ~190 buckets). */
export function encodeHistogram(counts: Uint32Array): Uint8Array {
  let n = 0;
  for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) n++;
  const out = new Uint8Array(n * 8);
  const view = new DataView(out.buffer);
  let off = 0;
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] === 0) continue;
    view.setUint32(off, i, true);
    view.setUint32(off + 4, counts[i]!, true);
    off += 8;
  }
  return out;
}

/** Adds a stored histogram into dense `into`. */
export function addEncoded(into: Uint32Array, stored: Uint8Array): void {
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  for (let off = 0; off + 8 <= stored.byteLength; off += 8) {
    const i = view.getUint32(off, true);
    into[i] = into[i]! + view.getUint32(off + 4, true);
  }
}
