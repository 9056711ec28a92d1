// What one cached answer costs in memory, estimated for the LRU's byte budget (docs/cache.md
// "Storage"). JavaScriptCore keeps a string in one byte per character when every character is
// Latin-1, else two; the fixed part covers the object, its fields and the usage object.
import type { CachedAnswer } from "./answer-store-types.ts";

const ENTRY_OVERHEAD = 320;
const PER_TAG_OVERHEAD = 32;
const WIDE = /[^\u0000-\u00ff]/;

export const stringBytes = (s: string): number => (WIDE.test(s) ? s.length * 2 : s.length);

export function entryBytes(e: CachedAnswer): number {
  let bytes = ENTRY_OVERHEAD + stringBytes(e.body) + e.key.length + e.partition.length + e.model.length + e.provider.length;
  if (e.question !== null) bytes += stringBytes(e.question);
  for (const tag of e.tags) bytes += PER_TAG_OVERHEAD + stringBytes(tag);
  return bytes;
}
