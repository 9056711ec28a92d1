// Request bodies: read within the size limit, parsed as a JSON object, and checked against a
// TypeBox schema compiled once, the first error becoming 400 invalid_request naming the param in
// OpenAI's style (`messages[0].role`).
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { LIMITS } from "../config/constants.ts";
import { GwError, invalidRequest } from "../errors/gw-error.ts";

/** `/messages/0/role` -> `messages[0].role` */
export function paramOf(path: string): string {
  let out = "";
  for (const part of path.split("/").slice(1)) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

/** For a union of literals, name the allowed values instead of TypeBox's "Expected union value". */
function describe(schema: TSchema, message: string): string {
  const options = (schema as { anyOf?: Array<{ const?: unknown }> }).anyOf;
  if (options?.length && options.every((o) => o.const !== undefined)) {
    return `expected one of ${options.map((o) => JSON.stringify(o.const)).join(", ")}`;
  }
  return message.replace(/^Expected/, "expected");
}

/** `at` + `role` -> `input[0].role`; `at` + `[1]` -> `input[0][1]`. */
const join = (at: string, param: string): string => (!at ? param : !param ? at : param.startsWith("[") ? at + param : `${at}.${param}`);

/** The validator names the failing param; `at` places a nested value (`input[3]`) in the body. */
export function compileValidator<T extends TSchema>(schema: T): (value: unknown, at?: string) => Static<T> {
  const check = TypeCompiler.Compile(schema);
  return (value, at = "") => {
    if (check.Check(value)) return value;
    const first = check.Errors(value).First();
    const param = first ? join(at, paramOf(first.path)) || null : at || null;
    const reason = first ? describe(first.schema, first.message) : "invalid value";
    throw invalidRequest(param ? `Invalid value for '${param}': ${reason}.` : `Invalid request body: ${reason}.`, param);
  };
}

/** The body must be a JSON object; anything else names no param but says what was wrong. */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === "") throw invalidRequest("The request body is empty; expected a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // The parser's detail quotes the body (a prompt, maybe): the caller sees it, the request log does not.
    const detail = err instanceof Error ? err.message : "parse error";
    throw new GwError("invalid_request", `The request body is not valid JSON (${detail}).`, {
      logMessage: "The request body is not valid JSON.",
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidRequest("The request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

/** The body as text within the size limit: 413 invalid_request past it (contracts.md 4). */
export async function readBodyText(req: Request, limit = LIMITS.bodyBytes): Promise<string> {
  const tooLarge = () => new GwError("invalid_request", `The request body exceeds ${limit} bytes.`, { status: 413 });
  const length = req.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (declared > limit) throw tooLarge();
  // With a declared length within the limit, Bun's text() is the fast path (no extra copy).
  if (Number.isInteger(declared)) return req.text();
  const bytes = await req.arrayBuffer();
  if (bytes.byteLength > limit) throw tooLarge();
  return new TextDecoder().decode(bytes);
}
