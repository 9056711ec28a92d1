// Nesting limit of request bodies (docs/api.md "Limits"): one linear pass over the JSON text
// before JSON.parse, so no recursive walk (canonical JSON, cache keys, schema translation,
// TypeBox) ever meets a structure deeper than LIMITS.jsonDepth.

export interface DepthExcess {
  /** The top-level key under which the limit was passed, when the body is an object. */
  key: string | null;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;

/**
 * Null when no bracket in `text` opens deeper than `max` levels (the body itself is level 1),
 * else where it happened. Brackets inside strings do not count; malformed text is left to
 * JSON.parse, which this never replaces.
 */
export function jsonDepthExcess(text: string, max: number): DepthExcess | null {
  let depth = 0;
  let key: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      // Skip the string; an escape skips the next unit, so \" never ends it.
      for (i = start; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
      // In a body object, the last string at level 1 before a deeper bracket is that value's key.
      if (depth === 1) key = i - start <= 64 ? text.slice(start, i) : null;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return { key };
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return null;
}
