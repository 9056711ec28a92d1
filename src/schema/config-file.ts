// The GW_CONFIG file's schema (docs/config.md, published as docs/config.schema.json) and its reader:
// every error names the file, the JSON path and what was expected, so start-up can print it as is.
import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler, ValueErrorType, type ValueError } from "@sinclair/typebox/compiler";
import { jsonErrorPosition } from "../config/json-position.ts";
import { paramOf } from "./validate.ts";

/** The task kinds a model's `quality` scores (routing/catalog-types.ts re-exports them). */
export const TASK_KINDS = [
  "general", "coding", "math", "reasoning", "translation", "summarization", "extraction",
  "classification", "creative", "chat", "qa", "agent", "vision",
] as const;

const Price = (description: string) => Type.Number({ minimum: 0, description });
const PositiveInt = (description: string) => Type.Integer({ minimum: 1, description });
const Score = Type.Number({ minimum: 0, maximum: 1 });

const Capabilities = Type.Object({
  tools: Type.Optional(Type.Boolean()),
  vision: Type.Optional(Type.Boolean()),
  json: Type.Optional(Type.Boolean()),
  reasoning: Type.Optional(Type.Boolean()),
  embeddings: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, description: "Merged field by field into the catalog entry's (or the defaults)." });

const Quality = Type.Object(
  Object.fromEntries(TASK_KINDS.map((k) => [k, Type.Optional(Score)])),
  { additionalProperties: false, description: "0..1 per task kind, merged field by field; unset kinds of a new model take `general`." },
);

/** Every field but `id` is optional: an entry overrides a catalog model's fields, or adds a model
 * (then `provider` is required too; docs/config.md "Models"). */
export const ModelEntrySchema = Type.Object({
  id: Type.String({ minLength: 1, description: "`<provider>/<model>`; a catalog id overrides that model, another id adds one." }),
  provider: Type.Optional(Type.String({ minLength: 1, pattern: "^[a-z0-9-]+$", description: "Required for a new model: openai, anthropic, google, ollama, vllm, azure-openai..." })),
  upstream_id: Type.Optional(Type.String({ minLength: 1, description: "The id the provider's API expects; default: `id` without its `<provider>/` prefix." })),
  name: Type.Optional(Type.String({ minLength: 1 })),
  owned_by: Type.Optional(Type.String({ minLength: 1 })),
  created: Type.Optional(Type.Integer({ minimum: 0, description: "Release date, epoch seconds." })),
  input_price: Type.Optional(Price("USD per million input tokens.")),
  output_price: Type.Optional(Price("USD per million output tokens.")),
  cached_input_price: Type.Optional(Type.Union([Price("USD per million cached input tokens."), Type.Null()])),
  cache_write_price: Type.Optional(Price("USD per million tokens written to the provider's prompt cache.")),
  context_window: Type.Optional(PositiveInt("Tokens of input and output together.")),
  max_output_tokens: Type.Optional(PositiveInt("Largest answer, in tokens.")),
  capabilities: Type.Optional(Capabilities),
  quality: Type.Optional(Quality),
  dimensions: Type.Optional(PositiveInt("Embedding models: the size of their vectors.")),
  dimensions_configurable: Type.Optional(Type.Boolean()),
  regions: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: "Where the model processes requests (e.g. eu, us)." })),
}, { additionalProperties: false });
export type ModelEntry = Static<typeof ModelEntrySchema>;

export const ConfigFileSchema = Type.Object({
  $schema: Type.Optional(Type.String({ description: "Ignored; lets editors find this schema." })),
  models: Type.Optional(Type.Array(ModelEntrySchema, { description: "Catalog overrides and additions (docs/config.md \"Models\")." })),
  aliases: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }), {
    description: "Requested id -> catalog model id or routing profile; a key may hold one `*` (docs/config.md \"Aliases\").",
  })),
}, {
  additionalProperties: false,
  title: "gw configuration file (GW_CONFIG)",
});
export type ConfigFile = Static<typeof ConfigFileSchema>;

const checker = TypeCompiler.Compile(ConfigFileSchema);

/** A config file that cannot be used; the message is meant to be printed without a stack trace. */
export class ConfigFileError extends Error {
  override name = "ConfigFileError";
}

function expected(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const allowed = Object.keys((error.schema as { properties?: object }).properties ?? {});
    return `unknown key${allowed.length ? ` (allowed: ${allowed.join(", ")})` : ""}`;
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) return "required";
  const options = (error.schema as { anyOf?: Array<{ type?: string }> }).anyOf;
  const got = error.value === undefined ? "" : `, got ${JSON.stringify(error.value)?.slice(0, 60)}`;
  // TypeBox says "Expected union value": name the kinds instead (`number or null`).
  const message = options ? `expected ${options.map((o) => o.type ?? "value").join(" or ")}` : error.message.replace(/^Expected/, "expected");
  return `${message}${got}`;
}

/** The first error of an invalid file as `path: what was expected`; undefined when it is valid. */
export function configFileError(value: unknown): string | undefined {
  if (checker.Check(value)) return undefined;
  const first = checker.Errors(value).First();
  return first ? `${paramOf(first.path) || "(top level)"}: ${expected(first)}` : "invalid value";
}

/** Parses and validates the text of the file at `path` (named in every error). */
export function parseConfigFile(path: string, text: string): ConfigFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Bun's parser says what broke but not where: the position is found by a second, slower walk.
    const at = jsonErrorPosition(text);
    const where = at ? ` at line ${at.line}, column ${at.column}` : "";
    throw new ConfigFileError(`GW_CONFIG ${path}: not valid JSON${where} (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigFileError(`GW_CONFIG ${path}: expected a JSON object at the top level`);
  }
  const error = configFileError(value);
  if (error) throw new ConfigFileError(`GW_CONFIG ${path}: ${error}`);
  return value as ConfigFile;
}
