// Hostile request-input texts for the "Request input" figures of docs/availability.md (seeded).
const MIB = 1024 * 1024;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const WORDS = "the of and to in is that for it as with was on be by this are from at or an which have not can".split(" ");

export function prose(bytes: number, seed = 1): string {
  const r = rng(seed);
  const out: string[] = [];
  let n = 0;
  while (n < bytes) {
    const w = WORDS[Math.floor(r() * WORDS.length)]! + (r() < 0.08 ? ". " : " ");
    out.push(w);
    n += w.length;
  }
  return out.join("").slice(0, bytes);
}

export function base64(bytes: number, seed = 2): string {
  const r = rng(seed);
  const raw = new Uint8Array(Math.ceil((bytes * 3) / 4));
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(r() * 256);
  return Buffer.from(raw).toString("base64").slice(0, bytes);
}

export const HOSTILE_TEXTS: Record<string, () => string> = {
  "10k identical letters": () => "a".repeat(10_000),
  "40k identical letters": () => "a".repeat(40_000),
  "80k identical letters": () => "a".repeat(80_000),
  "4 MB base64": () => base64(4_000_000),
  "9 MiB prose": () => prose(9 * MIB),
  "9 MiB one repeated token": () => "hello ".repeat(Math.floor((9 * MIB) / 6)),
  "9 MiB identical letters": () => "a".repeat(9 * MIB),
  "3 MiB CJK (9 MiB UTF-8)": () => "漢字仮名交じり文".repeat(Math.floor((3 * MIB) / 8)),
  "9 MiB emoji (ZWJ sequences)": () => "👩‍👩‍👧‍👦".repeat(Math.floor((9 * MIB) / 25)),
  "9 MiB digits": () => "7".repeat(9 * MIB),
  "9 MiB punctuation": () => "!?".repeat(Math.floor((9 * MIB) / 2)),
};
