// A cache key as eight 32-bit words for the key index (src/cache/key-index.ts). The pipeline's
// keys are lower-case sha256 hex: parsed, losslessly. Any other key is hashed with sha256 first,
// which is collision-free in practice; the index marks such keys apart.

export const KEY_WORDS = 8;

/** Character code -> hex digit value, -1 for anything else (a table: this runs on every lookup). */
const HEX = new Int8Array(128).fill(-1);
for (let d = 0; d < 10; d++) HEX[48 + d] = d;
for (let d = 0; d < 6; d++) HEX[97 + d] = 10 + d;

/** Writes the key's words into `out`; true when they are the key itself (parsed hex). */
export function keyWords(key: string, out: Uint32Array): boolean {
  if (key.length === KEY_WORDS * 8 && parseHex(key, out)) return true;
  const digest = new Bun.CryptoHasher("sha256").update(key).digest();
  const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  for (let i = 0; i < KEY_WORDS; i++) out[i] = view.getUint32(i * 4);
  return false;
}

function parseHex(key: string, out: Uint32Array): boolean {
  for (let w = 0; w < KEY_WORDS; w++) {
    let word = 0;
    for (let i = w * 8; i < w * 8 + 8; i++) {
      const c = key.charCodeAt(i);
      const d = c < 128 ? HEX[c]! : -1;
      if (d < 0) return false;
      word = (word << 4) | d;
    }
    out[w] = word >>> 0;
  }
  return true;
}
