// Hashing helpers: SHA-256 for stored API keys and stable fingerprints of request content.
const hasher = () => new Bun.CryptoHasher("sha256");

export function sha256Hex(text: string): string {
  return hasher().update(text).digest("hex");
}

/** A fast non-cryptographic 32-bit hash, for deterministic simulation seeds. */
export function seedOf(text: string): number {
  return Number(Bun.hash.wyhash(text) & 0xffffffffn);
}
