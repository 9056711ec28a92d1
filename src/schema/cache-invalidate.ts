// POST /cache/invalidate body (docs/api.md "Cache invalidation"): `tags` (1 to 100, each 1 to 120
// characters) and/or `all`. Unlike other bodies, bad input answers 422 `{message, errors}`
// (docs/api.md "Errors"), so every failing field is collected instead of the first one thrown.
import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler, type ValueError } from "@sinclair/typebox/compiler";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { LIMITS } from "../config/constants.ts";
import { isObject } from "../lib/json.ts";
import { paramOf } from "./validate.ts";
import { jsonDepthExcess } from "./json-depth.ts";

export const CacheInvalidateBody = Type.Object({
  tags: Type.Optional(Type.Array(
    Type.String({ minLength: 1, maxLength: LIMITS.invalidationTagLength }),
    { minItems: 1, maxItems: LIMITS.invalidationTags },
  )),
  all: Type.Optional(Type.Boolean()),
});
export type CacheInvalidateBody = Static<typeof CacheInvalidateBody>;

/** What to remove from a project's response cache (cache/answer-store.ts). */
export type Invalidation = { all: true } | { tags: string[] };

/** Field (`tags`, `tags[3]`, `all`, or `body` for the body as a whole) -> what is wrong with it. */
export type FieldErrors = Record<string, string[]>;

export type ParsedInvalidation =
  | { ok: true; value: Invalidation }
  | { ok: false; message: string; errors: FieldErrors };

const check = TypeCompiler.Compile(CacheInvalidateBody);

function reason(e: ValueError): string {
  switch (e.type) {
    case ValueErrorType.ArrayMaxItems: return `must hold at most ${LIMITS.invalidationTags} tags`;
    case ValueErrorType.ArrayMinItems: return "must hold at least one tag";
    case ValueErrorType.Array: return "must be an array of strings";
    case ValueErrorType.StringMaxLength: return `must be at most ${LIMITS.invalidationTagLength} characters`;
    case ValueErrorType.StringMinLength: return "must not be empty";
    case ValueErrorType.String: return "must be a string";
    case ValueErrorType.Boolean: return "must be a boolean";
    default: return e.message.replace(/^Expected/, "expected");
  }
}

const failure = (errors: FieldErrors): ParsedInvalidation => {
  const fields = Object.keys(errors);
  const first = fields[0] ?? "body";
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more field${fields.length > 2 ? "s" : ""})` : "";
  const subject = first === "body" ? "The request body" : `'${first}'`;
  return { ok: false, message: `${subject} ${errors[first]?.[0] ?? "is invalid"}${more}.`, errors };
};

/** The raw body text to an invalidation, or every reason it is not one. */
export function parseCacheInvalidate(text: string): ParsedInvalidation {
  if (text.trim() === "") return failure({ body: ["is empty; expected a JSON object with `tags` or `all`"] });
  if (jsonDepthExcess(text, LIMITS.jsonDepth)) return failure({ body: [`is nested deeper than ${LIMITS.jsonDepth} levels`] });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failure({ body: ["is not valid JSON"] });
  }
  if (!isObject(value)) return failure({ body: ["must be a JSON object"] });
  if (!check.Check(value)) {
    const errors: FieldErrors = {};
    for (const e of check.Errors(value)) {
      const field = paramOf(e.path) || "body";
      const list = (errors[field] ??= []);
      const text = reason(e);
      if (!list.includes(text)) list.push(text);
    }
    return failure(errors);
  }
  // `all: true` wins over tags: it removes everything the tags would.
  if (value.all === true) return { ok: true, value: { all: true } };
  if (value.tags === undefined) return failure({ tags: ["is required unless `all` is true"] });
  return { ok: true, value: { tags: [...new Set(value.tags)] } };
}
