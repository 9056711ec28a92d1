// Columnar packing of JSON values (docs/optimization.md "columnar_arrays"): an array of 10 or more
// objects with the same keys in the same order and scalar values becomes {columns, rows}.
export const MIN_ROWS = 10;
/** Deeper values are copied as they are: no recursion can overflow on hostile nesting. */
const MAX_DEPTH = 64;

type Scalar = string | number | boolean | null;
export interface Packed { columns: string[]; rows: Scalar[][] }

const isScalar = (v: unknown): v is Scalar => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The shared keys when every element is a plain object with exactly those keys, in that order,
 * and only scalar values; null otherwise. */
function homogeneousKeys(items: readonly unknown[]): string[] | null {
  if (items.length < MIN_ROWS || !isPlain(items[0])) return null;
  const keys = Object.keys(items[0]);
  if (keys.length === 0) return null;
  for (const item of items) {
    if (!isPlain(item)) return null;
    const own = Object.keys(item);
    if (own.length !== keys.length) return null;
    for (let k = 0; k < keys.length; k++) if (own[k] !== keys[k] || !isScalar(item[keys[k]!])) return null;
  }
  return keys;
}

/** The value with its homogeneous arrays packed, and how many; `lossy` when a number would not
 * survive re-emission (non-finite or -0), in which case the caller leaves the text alone; `members`
 * counts the object members walked (the whole value unless deeper than MAX_DEPTH). */
export function packColumns(value: unknown): { value: unknown; packed: number; lossy: boolean; members: number } {
  let packed = 0;
  let lossy = false;
  let members = 0;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))) lossy = true;
    if (depth > MAX_DEPTH || isScalar(v)) return v;
    if (Array.isArray(v)) {
      const keys = homogeneousKeys(v);
      if (!keys) return v.map((x) => walk(x, depth + 1));
      packed++;
      members += keys.length * v.length;
      const rows = v.map((item: Record<string, Scalar>) => keys.map((k) => walk(item[k], depth + 2) as Scalar));
      return { columns: keys, rows } satisfies Packed;
    }
    if (!isPlain(v)) return v;
    // fromEntries defines own properties, so a "__proto__" key stays a key.
    members += Object.keys(v).length;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, depth + 1)]));
  };
  const out = walk(value, 0);
  return { value: out, packed, lossy, members };
}

export function decodeColumns(p: Packed): Record<string, Scalar>[] {
  return p.rows.map((row) => Object.fromEntries(p.columns.map((c, i) => [c, row[i] ?? null])));
}

/** Decoding `p` gives `items` exactly: each item an object with the columns as its keys, in order,
 * and row k's values (compared without building the decoded objects). */
function rowsDecode(items: readonly unknown[], p: Packed): boolean {
  if (items.length !== p.rows.length) return false;
  return items.every((item, r) => {
    if (!isPlain(item)) return false;
    const keys = Object.keys(item);
    const row = p.rows[r]!;
    return keys.length === p.columns.length && keys.every((k, c) => k === p.columns[c] && Object.is(item[k], row[c]));
  });
}

function isPacked(v: unknown): v is Packed {
  return isPlain(v) && Array.isArray(v.columns) && Array.isArray(v.rows) && Object.keys(v).length === 2
    && v.columns.every((c) => typeof c === "string") && v.rows.every((r) => Array.isArray(r) && r.length === (v.columns as unknown[]).length);
}

/** True when `after` is `before` with some arrays packed: each packed array decodes to the
 * original rows exactly (values and key order), and everything else is equal. */
export function decodesToOriginal(before: unknown, after: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH) return JSON.stringify(before) === JSON.stringify(after);
  if (Array.isArray(before)) {
    if (isPacked(after)) return rowsDecode(before, after);
    return Array.isArray(after) && after.length === before.length && before.every((x, i) => decodesToOriginal(x, after[i], depth + 1));
  }
  if (isPlain(before)) {
    if (!isPlain(after)) return false;
    const keys = Object.keys(before);
    const got = Object.keys(after);
    return keys.length === got.length && keys.every((k, i) => got[i] === k && decodesToOriginal(before[k], after[k], depth + 1));
  }
  return Object.is(before, after);
}
