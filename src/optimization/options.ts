// The request's `optimization` object validated into OptimizationOptions (docs/optimization.md
// "Request options"): a bad key is a 400 that names it. The mode: the request's, else the
// project's `optimization_mode`, else "off".
import { invalidRequest } from "../errors/gw-error.ts";
import { MODES, type OptimizationMode, type OptimizationOptions, type PreserveItem, type Untouchable } from "./types.ts";
import { parsePath } from "./json-paths.ts";

/** Bounds that keep the gates linear and cheap: the preserve list is checked against every stage. */
export const LIMITS = { preserve: 64, literalChars: 1000, regexChars: 200, paths: 64, pathChars: 200 } as const;

const KEYS = new Set(["mode", "preserve", "do_not_compress", "documents", "fields"]);
const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant", "tool", "last_user"]);
const isMode = (v: unknown): v is OptimizationMode => typeof v === "string" && (MODES as readonly string[]).includes(v);

/** Options of a request that sets nothing, for a project without a mode: shared, never changed. */
export const OFF: OptimizationOptions = Object.freeze({
  mode: "off", preserve: [], do_not_compress: [], documents: [], fields: Object.freeze({ keep: [], drop: [] }),
}) as OptimizationOptions;

const bad = (field: string, why: string) => invalidRequest(`Invalid 'optimization.${field}': ${why}.`, `optimization.${field}`);

/** `raw` is the body's `optimization` (an object, by the schema, or absent); `messages` the
 * request's message count, which indexes must stay below. */
export function optimizationOptionsOf(raw: Record<string, unknown> | undefined, policyMode: OptimizationMode | undefined, messages: number): OptimizationOptions {
  if (raw === undefined) return policyMode === undefined || policyMode === "off" ? OFF : { ...OFF, mode: policyMode };
  for (const k in raw) if (!KEYS.has(k)) throw bad(k, `unknown key; the keys are ${[...KEYS].join(", ")}`);
  const mode = raw.mode === undefined ? (policyMode ?? "off") : raw.mode;
  if (!isMode(mode)) throw bad("mode", `expected one of ${MODES.join(", ")}`);
  return {
    mode,
    preserve: preserveOf(raw.preserve),
    do_not_compress: untouchableOf(raw.do_not_compress, messages),
    documents: indexesOf(raw.documents, "documents", messages),
    fields: fieldsOf(raw.fields),
  };
}

function listOf(v: unknown, field: string, max: number): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw bad(field, "expected an array");
  if (v.length > max) throw bad(field, `at most ${max} entries`);
  return v;
}

function preserveOf(v: unknown): PreserveItem[] {
  return listOf(v, "preserve", LIMITS.preserve).map((item, i): PreserveItem => {
    if (typeof item === "string") {
      if (item.length === 0 || item.length > LIMITS.literalChars) throw bad(`preserve[${i}]`, `a literal of 1 to ${LIMITS.literalChars} characters`);
      return item;
    }
    if (typeof item !== "object" || item === null || Array.isArray(item) || Object.keys(item).some((k) => k !== "regex")) {
      throw bad(`preserve[${i}]`, `expected a string or {"regex": "..."}`);
    }
    const source: unknown = Reflect.get(item, "regex");
    if (typeof source !== "string" || source.length === 0 || source.length > LIMITS.regexChars) throw bad(`preserve[${i}].regex`, `a pattern of 1 to ${LIMITS.regexChars} characters`);
    const unsafe = unsafeRegex(source);
    if (unsafe) throw bad(`preserve[${i}].regex`, unsafe);
    try {
      new RegExp(source, "gu");
    } catch {
      throw bad(`preserve[${i}].regex`, "not a valid regular expression");
    }
    return { regex: source };
  });
}

/** Patterns that can backtrack exponentially are refused: a repeated group holding a quantifier or
 * alternatives ("(a+)+", "(a|aa)*") and back-references. Linear patterns (alternatives outside
 * repeats, classes, single quantifiers) are what `preserve` needs. */
export function unsafeRegex(source: string): string | null {
  const groups: boolean[] = []; // per open group: holds a quantifier or an alternative
  let quantified = false; // the last closed group held one
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      if (/[1-9k]/.test(source[i + 1] ?? "")) return "back-references are not allowed";
      i++;
      quantified = false;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    const quantifier = c === "*" || c === "+" || c === "?" || c === "{";
    // "?" and "{n}" repeat a group at most a fixed number of times: no blow-up.
    const repeats = c === "*" || c === "+" || (c === "{" && /^\{\d*,/.test(source.slice(i, i + 12)));
    if (repeats && quantified) return "a repeated group holding a quantifier or alternatives can take exponential time";
    if (c === "[") inClass = true;
    else if (c === "(") groups.push(false);
    else if (c === "|" && groups.length > 0) groups[groups.length - 1] = true;
    else if (c === ")") {
      quantified = groups.pop() ?? false;
      if (quantified && groups.length > 0) groups[groups.length - 1] = true;
      continue;
    } else if (quantifier && groups.length > 0 && !(c === "?" && source[i - 1] === "(")) groups[groups.length - 1] = true;
    quantified = false;
  }
  return null;
}

function isIndex(v: unknown, messages: number): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v < messages;
}

function untouchableOf(v: unknown, messages: number): Untouchable[] {
  return listOf(v, "do_not_compress", 1024).map((item, i): Untouchable => {
    if (typeof item === "string" && ROLES.has(item)) return item as Exclude<Untouchable, number>;
    if (isIndex(item, messages)) return item;
    throw bad(`do_not_compress[${i}]`, `a role (${[...ROLES].join(", ")}) or a message index from 0 to ${messages - 1}`);
  });
}

function indexesOf(v: unknown, field: string, messages: number): number[] {
  const seen = new Set<number>();
  return listOf(v, field, 1024).map((item, i) => {
    if (!isIndex(item, messages)) throw bad(`${field}[${i}]`, `a message index from 0 to ${messages - 1}`);
    if (seen.has(item)) throw bad(`${field}[${i}]`, `index ${item} is listed twice`);
    seen.add(item);
    return item;
  });
}

function fieldsOf(v: unknown): OptimizationOptions["fields"] {
  if (v === undefined) return { keep: [], drop: [] };
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad("fields", `expected {"keep": [...], "drop": [...]}`);
  const out = { keep: [] as string[], drop: [] as string[] };
  for (const k in v) {
    if (k !== "keep" && k !== "drop") throw bad(`fields.${k}`, "unknown key; the keys are keep, drop");
    out[k] = listOf(Reflect.get(v, k), `fields.${k}`, LIMITS.paths).map((p, i) => {
      const why = typeof p !== "string" || p.length > LIMITS.pathChars ? `a JSON path of at most ${LIMITS.pathChars} characters` : parsePath(p).error;
      if (why) throw bad(`fields.${k}[${i}]`, why);
      return p as string;
    });
  }
  return out;
}
