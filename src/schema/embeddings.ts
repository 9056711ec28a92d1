// POST /embeddings body (docs/api.md "Embeddings"). Unknown fields are accepted, as OpenAI clients may
// send more. Token arrays (number[] or number[][], which OpenAI also accepts) are refused: a
// model's tokenizer is its own, so ids made for one model mean nothing to another provider.
import { Type, type Static } from "@sinclair/typebox";
import { LIMITS, MAX_EMBEDDING_INPUTS } from "../config/constants.ts";
import { invalidRequest } from "../errors/gw-error.ts";

const Text = Type.String({ minLength: 1 });

export const EmbeddingsBody = Type.Object({
  input: Type.Union([Text, Type.Array(Text, { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS })]),
  model: Type.Optional(Type.String({ minLength: 1 })),
  dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
  encoding_format: Type.Optional(Type.Union([Type.Literal("float"), Type.Literal("base64")])),
  user: Type.Optional(Type.String({ maxLength: LIMITS.userLength })),
}, { additionalProperties: true });
export type EmbeddingsBody = Static<typeof EmbeddingsBody>;

const isTokenArray = (value: unknown): boolean =>
  Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === "number");

/** `input` checked item by item before the schema, so that the error names the item at fault
 * (a union's failure would only say "input") and token arrays get a message of their own. */
export function checkInput(input: unknown): void {
  if (input === undefined) throw invalidRequest("'input' is required: a string or an array of strings.", "input");
  if (typeof input === "string") {
    if (input.length === 0) throw invalidRequest("'input' must not be an empty string.", "input");
    return;
  }
  if (!Array.isArray(input)) throw invalidRequest("'input' must be a string or an array of strings.", "input");
  if (isTokenArray(input) || input.some(isTokenArray)) {
    throw invalidRequest("Token arrays are not supported in 'input'; send the text as a string or an array of strings.", "input");
  }
  if (input.length === 0) throw invalidRequest("'input' must not be an empty array.", "input");
  if (input.length > MAX_EMBEDDING_INPUTS) {
    throw invalidRequest(`'input' may hold at most ${MAX_EMBEDDING_INPUTS} items; got ${input.length}.`, "input");
  }
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (typeof item !== "string") throw invalidRequest(`'input[${i}]' must be a string.`, `input[${i}]`);
    if (item.length === 0) throw invalidRequest(`'input[${i}]' must not be an empty string.`, `input[${i}]`);
  }
}
