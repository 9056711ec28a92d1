// The JSON paths of `optimization.fields` (docs/optimization.md "Fields"): `$`, then `.name`,
// `[n]` or `[*]` steps, e.g. `$.items[*].id`. `keep` projects a JSON value onto its paths, `drop`
// removes what they match; both leave a value no path reaches as it was.
/** A parsed JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

export type Step = { key: string } | { index: number } | { any: true };

const NAME = /^[A-Za-z_$][\w$-]*/;

/** A path's steps, or why it is not one. */
export function parsePath(path: string): { steps: Step[]; error: null } | { steps: null; error: string } {
  if (!path.startsWith("$")) return { steps: null, error: "a JSON path starts with '$'" };
  const steps: Step[] = [];
  for (let i = 1; i < path.length; ) {
    const rest = path.slice(i);
    if (rest.startsWith("[*]")) {
      steps.push({ any: true });
      i += 3;
    } else if (rest[0] === "[") {
      const close = rest.indexOf("]");
      const digits = close > 1 ? rest.slice(1, close) : "";
      if (!/^\d{1,9}$/.test(digits)) return { steps: null, error: `expected [n] or [*] at '${rest}'` };
      steps.push({ index: Number(digits) });
      i += close + 1;
    } else if (rest[0] === ".") {
      const name = NAME.exec(rest.slice(1))?.[0];
      if (!name) return { steps: null, error: `expected a name after '.' at '${rest}'` };
      steps.push({ key: name });
      i += 1 + name.length;
    } else return { steps: null, error: `expected '.name', '[n]' or '[*]' at '${rest}'` };
  }
  return { steps, error: null };
}

export const stepsOf = (paths: readonly string[]): Step[][] => paths.map((p) => parsePath(p).steps ?? []);

const isObject = (v: JsonValue): v is { [k: string]: JsonValue } => typeof v === "object" && v !== null && !Array.isArray(v);

/** The paths that continue below `key` (an array index or an object member). */
function below(paths: readonly Step[][], key: string | number): Step[][] {
  const out: Step[][] = [];
  for (const p of paths) {
    const s = p[0]!;
    if ("any" in s || ("index" in s && s.index === key) || ("key" in s && s.key === key)) out.push(p.slice(1));
  }
  return out;
}

/** `value` reduced to what the paths reach (and the containers on the way), or undefined when no
 * path reaches anything in it. */
export function keepPaths(value: JsonValue, paths: readonly Step[][]): JsonValue | undefined {
  if (paths.some((p) => p.length === 0)) return value;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    value.forEach((v, i) => {
      const sub = below(paths, i);
      const kept = sub.length > 0 ? keepPaths(v, sub) : undefined;
      if (kept !== undefined) out.push(kept);
    });
    return out.length > 0 ? out : undefined;
  }
  if (!isObject(value)) return undefined;
  const out: { [k: string]: JsonValue } = {};
  let any = false;
  for (const k in value) {
    const sub = below(paths, k);
    const kept = sub.length > 0 ? keepPaths(value[k]!, sub) : undefined;
    if (kept !== undefined) (out[k] = kept), (any = true);
  }
  return any ? out : undefined;
}

const DROPPED = Symbol("dropped");

/** `value` without what the paths reach. */
export function dropPaths(value: JsonValue, paths: readonly Step[][]): JsonValue {
  const out = drop(value, paths);
  return out === DROPPED ? null : out;
}

function drop(value: JsonValue, paths: readonly Step[][]): JsonValue | typeof DROPPED {
  if (paths.some((p) => p.length === 0)) return DROPPED;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    value.forEach((v, i) => {
      const sub = below(paths, i);
      const kept = sub.length > 0 ? drop(v, sub) : v;
      if (kept !== DROPPED) out.push(kept);
    });
    return out;
  }
  if (!isObject(value)) return value;
  const out: { [k: string]: JsonValue } = {};
  for (const k in value) {
    const sub = below(paths, k);
    const kept = sub.length > 0 ? drop(value[k]!, sub) : value[k]!;
    if (kept !== DROPPED) out[k] = kept;
  }
  return out;
}
