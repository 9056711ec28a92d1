// Sandbox provider: sampleFromSchema, deterministic sample values that validate against a JSON Schema
// (structured-output `response_format` schemas and tool-call function `parameters`).
import {
  mulberry32, num, numberFromSchema, patternString, pick, randInt, safeRegExp, stringFromSchema, textFor, type Rng,
} from "./schema-sample-strings.ts";

/*
 * Not supported (values may not validate): $ref to other documents or $id-relative URIs,
 * $dynamicRef/$recursiveRef, dependentSchemas, propertyNames, unevaluated*, minContains/maxContains,
 * two different `pattern`s or `multipleOf`s merged through allOf (the last wins), `not` beyond a few
 * retries, and regexes beyond the simple subset of schema-sample-strings.ts (lookarounds, backreferences).
 */

type Obj = Record<string, unknown>;
/** budget: values still to generate; each gen() spends one (docs/availability.md "Request input"). */
interface Ctx { root: unknown; rng: Rng; budget: number }
/** depth: schema hops (hard limit); nest: object/array nesting; seen: $refs expanded on this path; deep: keep it small. */
interface Pos { depth: number; nest: number; seen: readonly string[]; deep: boolean; key: string }

const SOFT_NEST = 8; // beyond this nesting, only required properties and minItems
const REF_REPEATS = 2; // a $ref expanded this often on one path switches to "deep" mode
const HARD_DEPTH = 96;
/** The most values one sample may take: bounded work for any schema (OpenAI itself allows at most
 * 5,000 properties in a structured-output schema). Past it, the schema is refused like one that
 * no value satisfies. */
export const SAMPLE_BUDGET = 10_000;
const overBudget = (): Error => new Error(`schema-sample: the schema needs more than ${SAMPLE_BUDGET} values`);

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: Obj, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);
const omit = (s: Obj, ...keys: string[]): Obj => Object.fromEntries(Object.entries(s).filter(([k]) => !keys.includes(k)));
const types = (t: unknown): string[] => (typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const clone = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const setOwn = (o: Obj, k: string, value: unknown): void => { Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true }); };

function asObj(s: unknown): Obj {
  if (s === false) throw new Error("schema-sample: the schema `false` accepts no value");
  return isObj(s) ? s : {};
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

function findAnchor(node: unknown, name: string): unknown {
  if (isObj(node) && (node.$anchor === name || node.$id === `#${name}`)) return node;
  const children: unknown[] = isObj(node) ? Object.values(node) : Array.isArray(node) ? node : [];
  return children.reduce<unknown>((hit, child) => hit ?? (typeof child === "object" ? findAnchor(child, name) : undefined), undefined);
}

/** Resolves a local `$ref` (`#`, `#/json/pointer`, `#anchor`) against the root schema. */
function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) throw new Error(`schema-sample: unsupported $ref ${ref}`);
  let cur: unknown = root;
  if (ref.length > 1 && !ref.startsWith("#/")) cur = findAnchor(root, ref.slice(1));
  else for (const raw of ref.slice(1).split("/").slice(1)) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    cur = Array.isArray(cur) ? cur[Number(part)] : isObj(cur) ? own(cur, part) : undefined;
  }
  if (cur === undefined) throw new Error(`schema-sample: unresolvable $ref ${ref}`);
  return cur;
}

const MAX_OF = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"]);
const MIN_OF = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"]);

/** Conjunction of two schemas as one schema (allOf branches, anyOf/oneOf branch plus siblings). */
function merge(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, bv] of Object.entries(b)) {
    const av = out[k];
    if (av === undefined) out[k] = bv;
    else if (MAX_OF.has(k) && num(av) !== undefined && num(bv) !== undefined) out[k] = Math.max(Number(av), Number(bv));
    else if (MIN_OF.has(k) && num(av) !== undefined && num(bv) !== undefined) out[k] = Math.min(Number(av), Number(bv));
    else if (k === "required") out[k] = [...new Set([...strings(av), ...strings(bv)])];
    else if (k === "properties" && isObj(av) && isObj(bv)) {
      const p: Obj = { ...av };
      for (const [pk, ps] of Object.entries(bv)) setOwn(p, pk, Object.hasOwn(p, pk) ? { allOf: [p[pk], ps] } : ps);
      out[k] = p;
    } else if (k === "type") {
      const ta = types(av), tb = types(bv);
      const both = [...ta.filter((t) => tb.includes(t) || (t === "integer" && tb.includes("number"))),
        ...(tb.includes("integer") && ta.includes("number") && !ta.includes("integer") ? ["integer"] : [])];
      out[k] = both.length ? both : bv;
    } else if (k === "enum" && Array.isArray(av) && Array.isArray(bv)) {
      const both = av.filter((x) => bv.some((y) => deepEqual(x, y)));
      out[k] = both.length ? both : bv;
    } else if (k === "allOf") out[k] = [...(Array.isArray(av) ? av : []), ...(Array.isArray(bv) ? bv : [])];
    else if (k === "anyOf" || k === "oneOf") out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { [k]: bv }];
    else if (k === "not") out[k] = { anyOf: [av, bv] };
    else if (["items", "additionalProperties", "additionalItems", "contains"].includes(k)) out[k] = av === false || bv === false ? false : { allOf: [av, bv] };
    else out[k] = bv;
  }
  for (const closed of [a, b]) { // additionalProperties:false admits only that branch's own properties
    if (closed.additionalProperties !== false) continue;
    const allowed = isObj(closed.properties) ? closed.properties : {};
    if (isObj(out.properties)) out.properties = Object.fromEntries(Object.entries(out.properties).filter(([k]) => Object.hasOwn(allowed, k)));
  }
  return out;
}

const TYPE_OK: Record<string, (v: unknown) => boolean> = {
  null: (v) => v === null, boolean: (v) => typeof v === "boolean", string: (v) => typeof v === "string",
  number: (v) => num(v) !== undefined, integer: (v) => Number.isInteger(v), array: Array.isArray, object: isObj,
};
const typeOk = (t: string, v: unknown): boolean => own(TYPE_OK, t) === undefined || TYPE_OK[t]?.(v) === true;

/** A small validator for the keywords this generator understands; unknown keywords pass. */
function conforms(s: unknown, v: unknown, root: unknown, depth = 0): boolean {
  if (s === false) return false;
  if (!isObj(s) || depth > HARD_DEPTH) return true;
  const c = (x: unknown, y: unknown): boolean => x === undefined || conforms(x, y, root, depth + 1);
  if (typeof s.$ref === "string" && !c(resolveRef(root, s.$ref), v)) return false;
  if (Object.hasOwn(s, "const") && !deepEqual(s.const, v)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEqual(e, v))) return false;
  if (s.type !== undefined && !types(s.type).some((t) => typeOk(t, v))) return false;
  if (Array.isArray(s.allOf) && !s.allOf.every((b) => c(b, v))) return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((b) => c(b, v))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((b) => c(b, v)).length !== 1) return false;
  if (s.not !== undefined && c(s.not, v)) return false;
  if (s.if !== undefined && !(c(s.if, v) ? c(s.then, v) : c(s.else, v))) return false;
  const below = (x: number, key: string): boolean => num(s[key]) !== undefined && x < Number(s[key]);
  const above = (x: number, key: string): boolean => num(s[key]) !== undefined && x > Number(s[key]);
  if (typeof v === "string") {
    const len = [...v].length;
    if (below(len, "minLength") || above(len, "maxLength")) return false;
    if (typeof s.pattern === "string" && safeRegExp(s.pattern)?.test(v) === false) return false;
  }
  if (typeof v === "number") {
    if (below(v, "minimum") || above(v, "maximum")) return false;
    if ((num(s.exclusiveMinimum) ?? -Infinity) >= v || (num(s.exclusiveMaximum) ?? Infinity) <= v) return false;
    if (num(s.multipleOf) !== undefined && !Number.isInteger(v / Number(s.multipleOf))) return false;
  }
  if (Array.isArray(v)) {
    if (below(v.length, "minItems") || above(v.length, "maxItems")) return false;
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    if (!v.every((x, i) => c(i < prefix.length ? prefix[i] : rest, x))) return false;
    if (s.contains !== undefined && !v.some((x) => c(s.contains, x))) return false;
    if (s.uniqueItems === true && v.some((x, i) => v.findIndex((y) => deepEqual(x, y)) !== i)) return false;
  }
  if (isObj(v)) {
    const keys = Object.keys(v);
    if (below(keys.length, "minProperties") || above(keys.length, "maxProperties")) return false;
    if (!strings(s.required).every((k) => Object.hasOwn(v, k))) return false;
    const props = isObj(s.properties) ? s.properties : {};
    const pats = isObj(s.patternProperties) ? Object.entries(s.patternProperties) : [];
    for (const k of keys) {
      const matched = pats.filter(([p]) => safeRegExp(p)?.test(k));
      if (!matched.every(([, ps]) => c(ps, v[k]))) return false;
      if (Object.hasOwn(props, k) ? !c(props[k], v[k]) : !matched.length && !c(s.additionalProperties, v[k])) return false;
    }
  }
  return true;
}

export function sampleFromSchema(schema: unknown, seed: number): unknown {
  return gen(schema, { root: schema, rng: mulberry32(seed), budget: SAMPLE_BUDGET }, { depth: 0, nest: 0, seen: [], deep: false, key: "" });
}

// Cached: the branch sort asks it O(n log n) times about the same branches.
const refMentions = new WeakMap<object, boolean>();
const mentionsRef = (s: unknown): boolean => {
  if (!isObj(s)) return false;
  let found = refMentions.get(s);
  if (found === undefined) refMentions.set(s, (found = JSON.stringify(s).includes('"$ref"')));
  return found;
};
/** Nearby alternatives to a value, for uniqueItems / `not` when re-sampling keeps hitting the same values. */
const variants = (v: unknown, n: number): unknown[] =>
  typeof v === "string" ? [`${v} ${n}`] : typeof v === "number" ? [v + 1, v - 1, v + 2, v - 2, v + n, v - n] : [];
const isNullOnly = (s: unknown): boolean => isObj(s) && (s.type === "null" || s.const === null);

/** Branch order: random rotation, null branches usually last; when deep, null then $ref-free branches first. */
function branchOrder(branches: unknown[], rng: Rng, deep: boolean): number[] {
  const start = randInt(rng, 0, branches.length - 1);
  const idx = branches.map((_, i) => (i + start) % branches.length);
  const nullFirst = deep || rng() < 0.2;
  const score = (i: number): number => (deep && mentionsRef(branches[i]) ? 2 : 0) + (isNullOnly(branches[i]) === nullFirst ? 0 : 1);
  return idx.sort((x, y) => score(x) - score(y));
}

function gen(s: unknown, ctx: Ctx, pos: Pos): unknown {
  if (pos.depth > HARD_DEPTH) throw new Error("schema-sample: schema nests too deeply (unbounded recursion?)");
  if (s === false) throw new Error("schema-sample: the schema `false` accepts no value");
  if (--ctx.budget < 0) throw overBudget();
  if (!isObj(s)) return textFor(pos.key, ctx.rng); // `true` accepts any value
  const next: Pos = { ...pos, depth: pos.depth + 1 };
  if (typeof s.$ref === "string") {
    const repeats = pos.seen.filter((r) => r === s.$ref).length;
    const target = asObj(resolveRef(ctx.root, s.$ref));
    return gen(merge(target, omit(s, "$ref")), ctx, { ...next, seen: [...pos.seen, s.$ref], deep: pos.deep || repeats >= REF_REPEATS });
  }
  if (Array.isArray(s.allOf)) {
    const refs = s.allOf.filter((b) => isObj(b) && typeof b.$ref === "string"); // expanded by gen, one at a time
    const merged = s.allOf.reduce<Obj>((acc, b) => (refs.includes(b) ? acc : merge(acc, asObj(b))), omit(s, "allOf"));
    const pending = [...refs.slice(1), ...(Array.isArray(merged.allOf) ? merged.allOf : [])];
    return gen(refs.length ? { ...merged, allOf: pending, $ref: asObj(refs[0]).$ref } : merged, ctx, next);
  }
  for (const kw of ["anyOf", "oneOf"] as const) {
    const branches = s[kw];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const rest = omit(s, kw);
    let first: { v: unknown } | undefined;
    for (const i of branchOrder(branches, ctx.rng, pos.deep)) {
      if (branches[i] === false) continue;
      for (let attempt = 0; attempt < 3; attempt++) {
        const v = gen(merge(rest, asObj(branches[i])), ctx, next);
        first ??= { v };
        if (kw === "anyOf" || branches.filter((b) => conforms(b, v, ctx.root)).length === 1) return v;
      }
    }
    if (first) return first.v;
    throw new Error(`schema-sample: no usable ${kw} branch`);
  }
  if (s.if !== undefined) {
    const rest = omit(s, "if", "then", "else");
    const cond = { if: s.if, then: s.then, else: s.else };
    const branches = [merge(merge(rest, asObj(s.if)), asObj(s.then ?? true)), merge(rest, asObj(s.else ?? true))];
    const candidates = branches.map((b) => gen(b, ctx, next));
    return candidates.find((v) => conforms(cond, v, ctx.root)) ?? candidates[0];
  }
  if (s.not !== undefined) {
    const rest = omit(s, "not");
    let v = gen(rest, ctx, next);
    for (let attempt = 0; attempt < 5 && conforms(s.not, v, ctx.root); attempt++) v = gen(rest, ctx, next);
    const ok = (x: unknown): boolean => !conforms(s.not, x, ctx.root) && conforms(rest, x, ctx.root);
    return ok(v) ? v : variants(v, 2).find(ok) ?? v;
  }
  if (Object.hasOwn(s, "const")) return clone(s.const);
  if (Array.isArray(s.enum) && s.enum.length) {
    const fitting = s.enum.filter((e) => conforms(omit(s, "enum"), e, ctx.root));
    return clone(pick(ctx.rng, fitting.length ? fitting : s.enum));
  }
  switch (pickType(s, ctx.rng, pos.deep)) {
    case "null": return null;
    case "boolean": return ctx.rng() < 0.5;
    case "integer": return numberFromSchema(s, true, ctx.rng);
    case "number": return numberFromSchema(s, false, ctx.rng);
    case "array": return genArray(s, ctx, next);
    case "object": return genObject(s, ctx, next);
    default: return stringFromSchema(s, ctx.rng, pos.key);
  }
}

function pickType(s: Obj, rng: Rng, deep: boolean): string {
  const ts = types(s.type);
  if (ts.length === 1) return ts[0] ?? "string";
  if (ts.length === 0) {
    const has = (...ks: string[]): boolean => ks.some((k) => s[k] !== undefined);
    if (has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "dependentRequired")) return "object";
    if (has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems", "additionalItems")) return "array";
    if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return "number";
    return "string";
  }
  if (deep) return ts.find((t) => t === "null") ?? ts.find((t) => t !== "object" && t !== "array") ?? pick(rng, ts);
  const nonNull = ts.filter((t) => t !== "null");
  return nonNull.length === 0 || (nonNull.length < ts.length && rng() < 0.2) ? "null" : pick(rng, nonNull);
}

function genArray(s: Obj, ctx: Ctx, pos: Pos): unknown[] {
  const prefix: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  const min = num(s.minItems) ?? 0, max = num(s.maxItems) ?? Infinity;
  if (min > ctx.budget) throw overBudget();
  let n = Math.max(min, prefix.length || (pos.deep ? 0 : randInt(ctx.rng, 1, 2)));
  if (rest === false) n = Math.min(n, Math.max(prefix.length, min));
  n = Math.min(n, max);
  const item: Pos = { ...pos, nest: pos.nest + 1, deep: pos.deep || pos.nest + 1 > SOFT_NEST };
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const schema = i < prefix.length ? prefix[i] : rest ?? true;
    let v = gen(schema, ctx, item);
    if (s.uniqueItems === true) {
      // The JSON text finds equal values in one lookup; deepEqual is left for a differing key order.
      const texts = new Set(out.map((o) => JSON.stringify(o)));
      const dup = (x: unknown): boolean => texts.has(JSON.stringify(x)) || (out.length <= 64 && out.some((o) => deepEqual(o, x)));
      for (let t = 0; t < 8 && dup(v); t++) v = gen(schema, ctx, item);
      const members = isObj(schema) && Array.isArray(schema.enum) ? schema.enum : [];
      const unused = [...members, ...variants(v, i + 1)].find((x) => !dup(x) && conforms(schema, x, ctx.root));
      if (dup(v) && unused !== undefined) v = clone(unused);
      if (dup(v) && i >= min) break;
    }
    out.push(v);
  }
  if (s.contains !== undefined && !out.some((x) => conforms(s.contains, x, ctx.root))) {
    const v = gen(merge(asObj(rest ?? true), asObj(s.contains)), ctx, item);
    if (out.length < max) out.push(v);
    else out[out.length - 1] = v;
  }
  return out;
}

function genObject(s: Obj, ctx: Ctx, pos: Pos): Obj {
  const props = isObj(s.properties) ? s.properties : {};
  const required = strings(s.required);
  const patterns = isObj(s.patternProperties) ? Object.entries(s.patternProperties) : [];
  const extra = isObj(s.additionalProperties) ? s.additionalProperties : true;
  const maxP = num(s.maxProperties) ?? Infinity, minP = num(s.minProperties) ?? 0;
  if (minP > ctx.budget || required.length > ctx.budget) throw overBudget();
  // Sets, not Array.includes: membership stays O(1) for schemas with thousands of properties.
  const requiredSet = new Set(required);
  const keys = Object.keys(props).filter((k) => requiredSet.has(k) || (!pos.deep && props[k] !== false));
  const keySet = new Set(keys);
  const add = (k: string): void => void (keySet.has(k) || (keySet.add(k), keys.push(k)));
  for (const k of required) add(k);
  const deps = isObj(s.dependentRequired) ? s.dependentRequired : {};
  for (let x = 0; x < keys.length; x++) for (const d of strings(own(deps, keys[x]!))) add(d);
  for (let i = keys.length - 1; i >= 0 && keys.length > maxP; i--) if (!requiredSet.has(keys[i] ?? "")) keySet.delete(keys.splice(i, 1)[0]!);
  for (const k of Object.keys(props)) if (keys.length < minP && props[k] !== false) add(k);
  const schemas = new Map<string, unknown>();
  for (let i = 1; keys.length < minP && i <= minP + 8; i++) {
    const [pattern, schema] = patterns[0] ?? [];
    if (pattern === undefined && s.additionalProperties === false) break;
    const k = pattern === undefined ? `extra_${i}` : patternString(pattern, ctx.rng, 1, undefined, `key_${i}`);
    if (!keySet.has(k)) { add(k); schemas.set(k, schema ?? extra); }
  }
  const item: Pos = { ...pos, nest: pos.nest + 1, deep: pos.deep || pos.nest + 1 > SOFT_NEST };
  const out: Obj = {};
  for (const k of keys) {
    const matched = patterns.find(([p]) => safeRegExp(p)?.test(k))?.[1];
    const schema = Object.hasOwn(props, k) ? props[k] : schemas.get(k) ?? matched ?? extra;
    setOwn(out, k, gen(schema, ctx, { ...item, key: k }));
  }
  return out;
}
