// Turns an OpenAI tool's JSON Schema into the OpenAPI 3.0 subset Gemini's `parameters` accept
// (docs/providers.md "Gemini tool schemas" lists what is kept, rewritten and dropped). Pure.
import { isObject, type JsonObject } from "../../lib/json.ts";

const COPIED = new Set([
  "title", "description", "nullable", "minItems", "maxItems", "required", "minProperties", "maxProperties",
  "minLength", "maxLength", "pattern", "example", "default", "propertyOrdering", "minimum", "maximum",
]);

/** Gemini answers 400 for other formats (e.g. "uri", "email"), so those are dropped. */
const FORMATS: Record<string, ReadonlySet<string>> = {
  STRING: new Set(["enum", "date-time"]),
  INTEGER: new Set(["int32", "int64"]),
  NUMBER: new Set(["float", "double"]),
};

const TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"]);

/** Recursive $refs are inlined this deep, then cut (an empty schema). */
const MAX_REF_DEPTH = 8;

function resolveRef(ref: string, root: JsonObject): JsonObject | null {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return null;
  const defs = root[match[1] as string];
  const target = isObject(defs) ? defs[decodeURIComponent(match[2] as string)] : undefined;
  return isObject(target) ? target : null;
}

const isNullSchema = (s: unknown): boolean => isObject(s) && s.type === "null";

function convert(input: JsonObject, root: JsonObject, depth: number): JsonObject {
  let schema = input;
  if (typeof schema.$ref === "string") {
    const target = depth < MAX_REF_DEPTH ? resolveRef(schema.$ref, root) : null;
    if (!target) return {};
    schema = { ...target, ...schema, $ref: undefined };
    depth++;
  }
  const out: JsonObject = {};
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (variants) {
    const nonNull = variants.filter((v) => !isNullSchema(v));
    if (nonNull.length < variants.length) out.nullable = true;
    // A nullable single type reads better as that type with nullable, as the SDK does.
    if (nonNull.length === 1 && isObject(nonNull[0])) return { ...convert(nonNull[0], root, depth), ...out, ...describe(schema) };
    out.anyOf = nonNull.filter(isObject).map((v) => convert(v, root, depth));
  }
  const type = typeOf(schema.type, out);
  if (type) out.type = type;
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || value === null) continue;
    if (COPIED.has(key)) out[key] = value;
    else if (key === "items" && isObject(value)) out.items = convert(value, root, depth);
    else if (key === "properties" && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, prop] of Object.entries(value)) if (isObject(prop)) props[name] = convert(prop, root, depth);
      out.properties = props;
    } else if (key === "format" && typeof value === "string" && type && FORMATS[type]?.has(value)) out.format = value;
    else if (key === "enum" && Array.isArray(value) && value.every((v) => typeof v === "string")) out.enum = value;
    else if (key === "const" && typeof value === "string") out.enum = [value];
  }
  // Gemini's enum belongs to a STRING; JSON Schema lets `enum`/`const` stand without a type.
  if (out.enum && !out.type && !out.anyOf) out.type = "STRING";
  return out;
}

function describe(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (typeof schema.description === "string") out.description = schema.description;
  if (typeof schema.title === "string") out.title = schema.title;
  return out;
}

/** The single Gemini type of a JSON Schema `type` (a list with "null" sets nullable on `out`). */
function typeOf(type: unknown, out: JsonObject): string | undefined {
  if (typeof type === "string") return TYPES.has(type.toUpperCase()) ? type.toUpperCase() : undefined;
  if (!Array.isArray(type)) return undefined;
  const kinds = type.filter((t): t is string => typeof t === "string" && t !== "null");
  if (kinds.length < type.length) out.nullable = true;
  if (kinds.length === 1) return typeOf(kinds[0], out);
  if (kinds.length > 1) out.anyOf = kinds.map((k) => ({ type: typeOf(k, {}) }));
  return undefined;
}

/** Gemini's Schema for a tool's parameters; null when there is nothing to declare (Gemini rejects
 * an OBJECT without properties, so a parameterless tool is sent without `parameters`). */
export function toGeminiSchema(schema: Record<string, unknown> | undefined): JsonObject | null {
  if (!isObject(schema)) return null;
  const out = convert(schema, schema, 0);
  if (out.type === "OBJECT" && (!isObject(out.properties) || Object.keys(out.properties).length === 0)) return null;
  return out;
}
