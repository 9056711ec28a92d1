// The embedder contract of the semantic cache (docs/semantic-cache.md "Embedders"): text in, unit vectors out,
// so cosine similarity is a dot product and the index can compare vectors from any implementation.

export interface Embedder {
  /** "use-lite", "ngram" or "provider:<model>": recorded with the index so vectors of different
   * embedders are never compared. */
  readonly name: string;
  readonly dimensions: number;
  /** One unit-length vector per text, in order. Rejects on failure or timeout: the caller treats
   * that as a cache miss, never as a failed request. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Resolves once the embedder can answer (the model is loaded); cheap embedders resolve at once. */
  ready(): Promise<void>;
  /** A model-backed embedder: resolves with the load time (ms) when its model first loads, and
   * never rejects (it stays pending when the model never loads). Nothing is loaded by asking. */
  readonly firstLoad?: Promise<number>;
  close(): Promise<void>;
}

/** Scales `v` to unit length in place; a zero vector stays zero (it then matches nothing). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] ?? 0) * (v[i] ?? 0);
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) * inv;
  return v;
}

/** Dot product; on unit vectors, the cosine similarity. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}
