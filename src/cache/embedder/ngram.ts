// The model-free embedder (docs/semantic-cache.md "Embedders"): character 3-grams and word unigrams/bigrams hashed
// into a fixed-size vector. Deterministic and instant, for tests and for operators who do not want
// the sentence model. It measures shared wording, not meaning: paraphrases with new words score low.
import { STOPWORDS, stem, words } from "../semantic-text.ts";
import { normalize, type Embedder } from "./types.ts";

const DEFAULT_DIMENSIONS = 512;
// Unigrams carry most of the meaning; bigrams add word order; 3-grams absorb spelling variants.
const W_UNIGRAM = 1;
const W_STOPWORD = 0.25;
const W_BIGRAM = 0.6;
const W_TRIGRAM = 0.25;

function fnv1a(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export class NgramEmbedder implements Embedder {
  readonly name: string;

  constructor(readonly dimensions: number = DEFAULT_DIMENSIONS) {
    this.name = `ngram-${dimensions}`;
  }

  /** Synchronous form, for callers that embed on their own thread anyway. */
  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimensions);
    // A feature's sign comes from another hash bit, so collisions cancel out on average instead of adding up.
    const add = (feature: string, weight: number): void => {
      const h = fnv1a(feature, 0);
      v[h % this.dimensions] = (v[h % this.dimensions] ?? 0) + (h & 0x80000000 ? -weight : weight);
    };
    const ws = words(text);
    let prev = "";
    for (const w of ws) {
      const stop = STOPWORDS.has(w);
      const s = stem(w);
      add(`w:${s}`, stop ? W_STOPWORD : W_UNIGRAM);
      if (prev !== "") add(`b:${prev} ${s}`, W_BIGRAM);
      prev = s;
      if (stop) continue;
      const padded = ` ${w} `;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, W_TRIGRAM);
    }
    return normalize(v);
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.embedOne(t)));
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
