// canonicalJson (src/lib/json.ts) is iterative: the same text as the recursive definition it
// replaced (idempotency fingerprints stored before the change still match), at any nesting depth.
import { describe, expect, test } from "bun:test";
import { canonicalJson } from "../../src/lib/json.ts";

/** The recursive definition, kept here as the reference. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${reference(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function randomJson(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth > 4 || pick < 0.3) return [null, true, false, 0, -1.5, 1e21, "", "é\"\\\n", "\ud83d\ude00"][Math.floor(r() * 9)];
  if (pick < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, (_, i) => [["b", "a", "ä", "10", "2", "__proto_"][Math.floor(r() * 6)]! + i, randomJson(r, depth + 1)]));
}

describe("canonicalJson: iterative, same text as before", () => {
  test("500 seeded random JSON values give the reference text", () => {
    const r = rng(14);
    for (let i = 0; i < 500; i++) {
      const value = JSON.parse(JSON.stringify(randomJson(r, 0)));
      expect(canonicalJson(value)).toBe(reference(value));
    }
  });

  test("a value nested 200,000 deep (the reference overflows the stack) is written whole", () => {
    let value: unknown = 1;
    for (let i = 0; i < 200_000; i++) value = i % 2 ? [value] : { k: value };
    expect(() => reference(value)).toThrow(RangeError);
    const text = canonicalJson(value);
    expect(text.length).toBe(200_000 * 2 + 100_000 * 4 + 1);
    expect(text.startsWith('[{"k":[{"k":')).toBe(true);
    expect(text.includes('{"k":1}]')).toBe(true);
  });
});
