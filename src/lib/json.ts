// Small JSON helpers shared by the store and the HTTP layer.

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Parses JSON that gw itself wrote; a corrupt value reads as the fallback rather than throwing. */
export function parseStored<T>(text: string | null | undefined, fallback: T): T {
  if (text == null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** JSON with object keys sorted at every depth, so key order and whitespace never change it.
 * Iterative (an explicit stack), so no nesting depth can overflow the call stack; linear in size. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work items, popped last first: a value to write, or text to emit as is.
  const stack: Array<{ v: unknown } | string> = [{ v: value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === "string") {
      out.push(item);
      continue;
    }
    const v = item.v;
    if (Array.isArray(v)) {
      stack.push("]");
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i] });
        if (i > 0) stack.push(",");
      }
      stack.push("[");
    } else if (typeof v === "object" && v !== null) {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      stack.push("}");
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ v: obj[keys[i]!] }, `${JSON.stringify(keys[i])}:`);
        if (i > 0) stack.push(",");
      }
      stack.push("{");
    } else out.push(JSON.stringify(v));
  }
  return out.join("");
}
