// Stage cache_align (docs/optimization.md "cache_align"): tool definitions in one canonical key order,
// so a client whose serialiser reorders keys (Go maps, Swift dictionaries, merged schemas) still
// sends the provider the same prompt prefix every turn. The caller's tool order is kept.
import type { ChatRequest } from "../../canonical/chat.ts";
import type { Stage } from "../types.ts";

type Obj = { [key: string]: unknown };

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Names that open an object, each with its position: a lookup per key keeps a schema of thousands
 * of required properties linear. */
type Head = ReadonlyMap<string, number>;
const headOf = (names: readonly string[]): Head => new Map(names.map((n, i) => [n, i]));
/** The keys a tool and its function open with, in the order OpenAI documents them; the rest follow
 * sorted. Inside `parameters` every object's keys are sorted, except property names (properties()). */
const TOOL_HEAD = headOf(["type", "function"]);
const FUNCTION_HEAD = headOf(["name", "description", "parameters", "strict"]);
const NO_HEAD: Head = new Map();
const DEPTH = 64; // deeper than any real schema: left as sent rather than recursed into

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** What an object is, which says how its values are canonicalised (no closure per object). */
const enum Kind { Schema, Properties, Function, Tool }

function childOf(kind: Kind, o: Obj, k: string, v: unknown, depth: number): unknown {
  switch (kind) {
    case Kind.Schema:
      return k === "properties" && isObj(v) ? properties(v, o.required, depth + 1) : canonical(v, depth + 1);
    case Kind.Properties:
      return canonical(v, depth + 1);
    case Kind.Function:
      return k === "parameters" ? canonical(v, 0) : v;
    case Kind.Tool:
      return k === "function" && isObj(v) ? reorder(v, FUNCTION_HEAD, Kind.Function, 0) : canonical(v, 0);
  }
}

/**
 * `o` with its keys in canonical order (the `head` names present, in head's order, then the others
 * sorted by code unit) and each value canonical; `o` itself when both already hold. The check
 * allocates nothing, so a client that sends canonical tools pays one walk.
 */
function reorder(o: Obj, head: Head, kind: Kind, depth: number): Obj {
  let ordered = true;
  let nextHead = 0;
  let lastRest: string | null = null;
  let changed: Map<string, unknown> | null = null;
  for (const k in o) {
    const at = head.size === 0 ? undefined : head.get(k);
    if (at !== undefined) {
      if (at < nextHead || lastRest !== null) ordered = false;
      nextHead = at + 1;
    } else {
      if (lastRest !== null && lastRest >= k) ordered = false;
      lastRest = k;
    }
    const v = o[k];
    const c = childOf(kind, o, k, v, depth);
    if (c !== v) (changed ??= new Map()).set(k, c);
  }
  if (ordered && changed === null) return o;
  const rest = Object.keys(o).filter((k) => !head.has(k)).sort(byCodeUnit);
  const out: Obj = {};
  for (const k of head.keys()) if (Object.hasOwn(o, k)) out[k] = changed?.has(k) ? changed.get(k) : o[k];
  for (const k of rest) out[k] = changed?.has(k) ? changed.get(k) : o[k];
  return out;
}

/** A JSON Schema value with every object's keys sorted, or the same value when it already is. */
function canonical(v: unknown, depth: number): unknown {
  if (typeof v !== "object" || v === null || depth > DEPTH) return v;
  if (!Array.isArray(v)) return reorder(v as Obj, NO_HEAD, Kind.Schema, depth);
  let out: unknown[] | null = null;
  for (let i = 0; i < v.length; i++) {
    const c = canonical(v[i], depth + 1);
    if (c !== v[i]) (out ??= v.slice())[i] = c;
  }
  return out ?? v;
}

/**
 * A schema's `properties`: the names its `required` array lists first, in that order, then the
 * others sorted. Models tend to write arguments in this order (OpenAI's strict mode does, and
 * strict tools list every property in `required`), so the author's order is kept wherever
 * `required`, an array no serialiser reorders, states it; each property's schema is canonical.
 */
function properties(props: Obj, required: unknown, depth: number): Obj {
  let listed = NO_HEAD;
  if (Array.isArray(required) && required.length > 0) {
    const names = new Map<string, number>();
    for (const name of required) if (typeof name === "string" && Object.hasOwn(props, name) && !names.has(name)) names.set(name, names.size);
    listed = names;
  }
  return reorder(props, listed, Kind.Properties, depth);
}

/** One tool in canonical order, or the same object when it already is. */
export function canonicalTool(tool: unknown): unknown {
  return isObj(tool) ? reorder(tool, TOOL_HEAD, Kind.Tool, 0) : tool;
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
