// A cached answer's body parsed once per entry the memory tier holds (docs/cache.md "Storage"):
// each hit copies its top level, sets id and created, and gets the JSON text as the completion's
// own, so the answer is neither parsed nor serialised again per hit.
import { RAW_BODY, type ChatCompletion } from "../canonical/completion.ts";
import { isObject } from "../lib/json.ts";
import type { CachedAnswer } from "./answer-store-types.ts";
import { stringBytes } from "./entry-bytes.ts";

export interface ServedForm {
  /** The stored completion; its values are frozen, since every hit shares them. */
  readonly base: Readonly<Record<string, unknown>>;
  /** JSON.stringify of a hit's completion, cut around the two values that change per hit. */
  readonly text: readonly [string, string, string];
  /** Whether id comes before created in that text. */
  readonly idFirst: boolean;
  /** Whether completion-body.ts may splice the text: the first `"model":<model>` in it is the
   * top-level key (checked once; otherwise the completion is serialised from the object). */
  readonly spliceable: boolean;
}

const forms = new WeakMap<CachedAnswer, ServedForm>();

/** The form kept for this entry, if the store made one. */
export const servedFormOf = (entry: CachedAnswer): ServedForm | undefined => forms.get(entry);

/** Estimated bytes of a form: the parsed copy and the cut text, each about the body's size. */
export const servedFormBytes = (entry: CachedAnswer): number => 2 * stringBytes(entry.body) + 256;

/** Makes and keeps the entry's form; false when its body is not a JSON object (parsed per hit, as before). */
export function keepServedForm(entry: CachedAnswer): boolean {
  if (forms.has(entry)) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.body);
  } catch {
    // A corrupt body fails where it always did: when the hit is served.
    return false;
  }
  if (!isObject(parsed)) return false;
  forms.set(entry, buildForm(deepFreeze(parsed)));
  return true;
}

function deepFreeze(root: Record<string, unknown>): Record<string, unknown> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return root;
}

/** Marks the two values left out; JSON escapes every NUL of a key or value, so it is found only there. */
const SLOT = "\u0000";

/** The text JSON.stringify writes for `{...base, id, created}` (id and created replaced in place,
 * or added last in that order), without those two values. */
function buildForm(base: Record<string, unknown>): ServedForm {
  const keys = Object.keys(base);
  if (!Object.hasOwn(base, "id")) keys.push("id");
  if (!Object.hasOwn(base, "created")) keys.push("created");
  let modelAt = -1;
  let joined = "{";
  for (const [i, k] of keys.entries()) {
    if (i > 0) joined += ",";
    if (k === "model") modelAt = joined.length;
    joined += `${JSON.stringify(k)}:${k === "id" || k === "created" ? SLOT : JSON.stringify(base[k])}`;
  }
  joined += "}";
  const first = joined.indexOf(SLOT);
  const second = joined.indexOf(SLOT, first + 1);
  const text: [string, string, string] = [joined.slice(0, first), joined.slice(first + 1, second), joined.slice(second + 1)];
  // A match can neither start in a filled value (`"chatcmpl-…"`, digits) nor run into one (only
  // `"id":` and `"created":` precede them), so where it falls in this text it falls in every hit's.
  const spliceable = typeof base.model === "string" && joined.indexOf(`"model":${JSON.stringify(base.model)}`) === modelAt;
  return { base, text, idFirst: keys.indexOf("id") < keys.indexOf("created"), spliceable };
}

function fill(text: readonly [string, string, string], idFirst: boolean, id: string, created: number): string {
  const idJson = JSON.stringify(id);
  const createdJson = JSON.stringify(created);
  return idFirst ? text[0] + idJson + text[1] + createdJson + text[2] : text[0] + createdJson + text[1] + idJson + text[2];
}

/** A hit's completion from the form: a fresh top level over the shared values, with its text. */
export function completionFromForm(form: ServedForm, id: string, created: number): ChatCompletion {
  const completion = { ...form.base, id, created } as ChatCompletion;
  if (form.spliceable) completion[RAW_BODY] = fill(form.text, form.idFirst, id, created);
  return completion;
}
