// Request bodies: read within the size limit, parsed as a JSON object, and checked against a
// TypeBox schema compiled once, the first error becoming 400 invalid_request naming the param in
// OpenAI's style (`messages[0].role`).
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { LIMITS } from "../config/constants.ts";
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import { jsonDepthExcess } from "./json-depth.ts";

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
  // A body opening with a printable ASCII character is not blank: no trimmed copy of it is made.
  const first = text.charCodeAt(0);
  if (!(first > 32 && first < 127) && text.trim() === "") throw invalidRequest("The request body is empty; expected a JSON object.");
  // Before the parser: nothing below ever walks a structure deeper than the limit.
  const deep = jsonDepthExcess(text, LIMITS.jsonDepth);
  if (deep) {
    const where = deep.key === null ? "The request body" : `'${deep.key}'`;
    throw invalidRequest(`${where} is nested deeper than ${LIMITS.jsonDepth} levels.`, deep.key);
  }
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

const LATE = Symbol("late");

const timedOut = (deadlineMs: number) =>
  new GwError("invalid_request", `The request body was not received within ${deadlineMs / 1000} s.`, { status: 408 });

/** req.text() within the deadline: one promise and one timer per request, not a race of two. */
function textWithin(req: Request, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut(deadlineMs)), deadlineMs);
    const unread = () => {
      clearTimeout(timer);
      reject(invalidRequest("The request body could not be read."));
    };
    try {
      req.text().then((text) => {
        clearTimeout(timer);
        resolve(text);
      }, unread);
    } catch {
      unread();
    }
  });
}

/** The body as text within the size limit (413 past it, docs/api.md "Limits") and the read deadline
 * (408 past it; docs/api.md "Limits"). A declared length over the limit is refused unread; any other
 * body is read as a stream and counted, so nothing past limit + one chunk is ever buffered. */
export async function readBodyText(req: Request, limit: number = LIMITS.bodyBytes, deadlineMs: number = LIMITS.bodyReadMs): Promise<string> {
  const tooLarge = () => new GwError("invalid_request", `The request body exceeds ${limit} bytes.`, { status: 413 });
  const length = req.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (declared > limit) throw tooLarge();
  // Bun builds a stream object on the first read of `body`: the declared-length path never asks.
  if (declared === 0 || (!Number.isInteger(declared) && !req.body)) return "";
  // A declared length within the limit bounds Bun's own buffer: text() is the fast path.
  if (Number.isInteger(declared)) return await textWithin(req, deadlineMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), deadlineMs)));
  const reader = req.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === LATE) throw timedOut(deadlineMs);
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) throw tooLarge();
      chunks.push(next.value);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (err instanceof GwError) throw err;
    // The client went away or sent a broken chunked encoding: nothing to parse.
    throw invalidRequest("The request body could not be read.");
  } finally {
    clearTimeout(timer);
  }
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}
