// Test-mode embeddings (docs/api.md "Embeddings"): 16-dimension unit vectors that depend only on the
// text, so tests can compare them across runs and machines; usage counted with gpt-tokenizer.
import { countTextsTokens } from "../../analysis/tokens.ts";
import { TEST_EMBEDDING_DIMENSIONS } from "../../config/constants.ts";
import type { EmbedCall } from "../types.ts";
import type { EmbeddingResult } from "../../canonical/embeddings.ts";

/** sfc32 (Chris Doty-Humphrey's small fast counter), seeded with 128 bits of the text's SHA-256.
 * Integer arithmetic only, so every engine yields the same sequence. */
function sfc32(seed: Buffer): () => number {
  let a = seed.readInt32LE(0), b = seed.readInt32LE(4), c = seed.readInt32LE(8), d = seed.readInt32LE(12);
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** A unit vector for the text. Each component is the sum of four uniforms minus 2 (Irwin-Hall:
 * close enough to Gaussian that directions spread evenly) rather than Box-Muller, because log and
 * cos may differ in the last bit between engines while +, -, * and sqrt may not. */
export function testVector(text: string, dims = TEST_EMBEDDING_DIMENSIONS): number[] {
  const next = sfc32(new Bun.CryptoHasher("sha256").update(text).digest());
  const out = new Array<number>(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    const v = next() + next() + next() + next() - 2;
    out[i] = v;
    norm += v * v;
  }
  // A zero vector needs all 64 draws at exactly 0.5: not a case to handle.
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) out[i] = out[i]! / norm;
  return out;
}

/** The simulated result: always 16 dimensions, whatever `dimensions` asked (checked against the
 * model by the route stage, then ignored: test vectors have 16, docs/api.md "Embeddings"). */
export function simulateEmbeddings(call: EmbedCall): EmbeddingResult {
  // One token budget for all inputs (analysis/token-pieces.ts), not one per input.
  const tokens = countTextsTokens(call.input);
  const data = call.input.map((text, index) => ({ index, embedding: testVector(text) }));
  return { model: call.model.upstream_id, data, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}
