// Stage cache_align (docs/optimization.md "cache_align"): tool definitions in one canonical key order,
// so a client whose serialiser reorders keys (Go maps, Swift dictionaries, merged schemas) still
// sends the provider the same prompt prefix every turn. The caller's tool order is kept.
import type { ChatRequest } from "../../canonical/chat.ts";
import type { Stage } from "../types.ts";

type Obj = { [key: string]: unknown };

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The keys a tool and its function open with, in the order OpenAI documents them; the rest follow
 * sorted. Inside `parameters` every object's keys are sorted, except property names (properties()). */
const TOOL_HEAD = ["type", "function"];
const FUNCTION_HEAD = ["name", "description", "parameters", "strict"];

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function orderedKeys(o: Obj, head: readonly string[]): string[] {
  const own = Object.keys(o);
  const rest = own.filter((k) => !head.includes(k)).sort(byCodeUnit);
  return [...head.filter((k) => Object.hasOwn(o, k)), ...rest];
}

/** Whether `o`'s own keys are already in `order` (then no copy is made). */
function inOrder(o: Obj, order: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== order[i++]) return false;
  return i === order.length;
}

/** A JSON Schema value with every object's keys sorted, or the same value when it already is. */
function canonical(v: unknown, depth = 0): unknown {
  if (depth > 64) return v; // deeper than any real schema: left as sent rather than recursing on
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const c = canonical(v[i], depth + 1);
      if (c !== v[i]) (out ??= v.slice())[i] = c;
    }
    return out ?? v;
  }
  if (!isObj(v)) return v;
  const order = Object.keys(v).sort(byCodeUnit);
  let changed = !inOrder(v, order);
  const values: unknown[] = [];
  for (const k of order) {
    const x = v[k];
    const c = k === "properties" && isObj(x) ? properties(x, v.required, depth + 1) : canonical(x, depth + 1);
    if (c !== x) changed = true;
    values.push(c);
  }
  if (!changed) return v;
  const out: Obj = {};
  for (let i = 0; i < order.length; i++) out[order[i]!] = values[i];
  return out;
}

/**
 * A schema's `properties`: the names its `required` array lists first, in that order, then the
 * others sorted. Models tend to write arguments in this order (OpenAI's strict mode does, and
 * strict tools list every property in `required`), so the author's order is kept wherever
 * `required`, an array no serialiser reorders, states it; each property's schema is canonical.
 */
function properties(props: Obj, required: unknown, depth: number): Obj {
  const order: string[] = [];
  const listed = new Set<string>();
  if (Array.isArray(required)) {
    for (const name of required) {
      if (typeof name !== "string" || !Object.hasOwn(props, name) || listed.has(name)) continue;
      listed.add(name);
      order.push(name);
    }
  }
  const rest = Object.keys(props).filter((k) => !listed.has(k)).sort(byCodeUnit);
  for (const k of rest) order.push(k);
  let changed = !inOrder(props, order);
  const values: unknown[] = [];
  for (const k of order) {
    const c = canonical(props[k], depth + 1);
    if (c !== props[k]) changed = true;
    values.push(c);
  }
  if (!changed) return props;
  const out: Obj = {};
  for (let i = 0; i < order.length; i++) out[order[i]!] = values[i];
  return out;
}

/** One tool in canonical order, or the same object when it already is. */
export function canonicalTool(tool: unknown): unknown {
  if (!isObj(tool)) return tool;
  const fn = tool.function;
  let fnOut: unknown = fn;
  if (isObj(fn)) {
    const params = fn.parameters === undefined ? undefined : canonical(fn.parameters);
    const order = orderedKeys(fn, FUNCTION_HEAD);
    if (params !== fn.parameters || !inOrder(fn, order)) {
      const copy: Obj = {};
      for (const k of order) copy[k] = k === "parameters" ? params : fn[k];
      fnOut = copy;
    }
  }
  const order = orderedKeys(tool, TOOL_HEAD);
  if (fnOut === fn && inOrder(tool, order)) return tool;
  const out: Obj = {};
  for (const k of order) out[k] = k === "function" ? fnOut : canonical(tool[k]);
  return out;
}

/** Deep equality of JSON values that ignores object key order (arrays keep theirs). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

export const cacheAlign: Stage = {
  name: "cache_align",
  from: "safe",
  run(req: ChatRequest): ChatRequest | null {
    const tools: unknown = req.tools;
    if (!Array.isArray(tools) || tools.length === 0) return null;
    let out: unknown[] | null = null;
    for (let i = 0; i < tools.length; i++) {
      const c = canonicalTool(tools[i]);
      if (c !== tools[i]) (out ??= tools.slice())[i] = c;
    }
    return out ? { ...req, tools: out as ChatRequest["tools"] } : null;
  },
  // Only `tools` may differ, and only in key order: same tools, same order, same values.
  verify(before: ChatRequest, after: ChatRequest): boolean {
    for (const k of Object.keys(before)) if (k !== "tools" && before[k] !== after[k]) return false;
    return Object.keys(after).length === Object.keys(before).length && sameJson(before.tools, after.tools);
  },
};
