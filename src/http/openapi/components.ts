// Shared parts of the OpenAPI document (docs/api.md "OpenAPI"): the error envelope from the codes
// table, the gw object, model entries, gw's request and response headers, the security schemes.
import { Type, type TSchema } from "@sinclair/typebox";
import { API_VERSION, KEY_SCOPES, LIMITS } from "../../config/constants.ts";
import { ERROR_CODES } from "../../errors/codes.ts";
import { Metrics } from "../../schema/metrics.ts";

const Str = Type.String();
const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const oneOf = (values: readonly string[]) => Type.Union([...new Set(values)].map((v) => Type.Literal(v)));
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const codes = Object.values(ERROR_CODES);

/** docs/api.md "Errors": every code, type and category of src/errors/codes.ts. */
const ErrorEnvelope = Type.Object({
  error: Type.Object({
    message: Str,
    type: oneOf(codes.map((c) => c.type)),
    code: oneOf(Object.keys(ERROR_CODES)),
    param: nullable(Str),
    category: oneOf(codes.map((c) => c.category)),
    request_id: nullable(Str),
  }),
}, { description: 'docs/api.md "Errors"' });

/** The 422 body of /cache/invalidate and /feedback. */
const FieldErrors = Type.Object({
  message: Str,
  errors: Type.Record(Str, Type.Array(Str)),
}, { description: "Every failing field with its messages." });

/** docs/api.md "The gw object". */
const GwObject = Type.Object({
  request_id: Str,
  selected_model: nullable(Str),
  provider: nullable(Str),
  cost: Type.Number({ minimum: 0 }),
  saved: Type.Number(),
  cache: nullable(oneOf(["exact", "semantic"])),
  similarity: Type.Optional(Type.Number()),
  fallbacks: Type.Integer({ minimum: 0 }),
  test: Type.Boolean(),
}, { description: 'docs/api.md "The gw object"' });

const ProfileEntry = Type.Object({
  id: Str, object: Type.Literal("model"), owned_by: Str, created: Type.Literal(0),
  gw: Type.Object({ virtual: Type.Literal(true) }),
});
const CatalogEntry = Type.Object({
  id: Type.String({ pattern: "^[^/]+/.+$" }), object: Type.Literal("model"), owned_by: Str, created: Type.Integer(),
  gw: Type.Object({
    name: Str, input_price: Type.Number({ minimum: 0 }), output_price: Type.Number({ minimum: 0 }),
    context_window: Type.Integer({ minimum: 1 }), tools: Type.Boolean(), vision: Type.Boolean(), json: Type.Boolean(),
    reasoning: Type.Boolean(), embeddings: Type.Boolean(), quality: Type.Number(), routable: Type.Boolean(),
  }),
});

/** A page of a list; `items` is a schema reference. */
export const listOf = (items: object, extra: Record<string, TSchema> = {}) =>
  Type.Object({ object: Type.Literal("list"), data: Type.Array(Type.Unsafe(items)), has_more: Type.Boolean(), ...extra });

export const SCHEMAS: Record<string, TSchema> = {
  ErrorEnvelope, FieldErrors, GwObject, Metrics,
  Model: Type.Union([ProfileEntry, CatalogEntry], { description: 'docs/api.md "Models"' }),
};
export const schemaRef = ref;

const header = (description: string, schema: object = { type: "string" }) => ({ description, schema });

/** Response headers (docs/api.md "Response headers"); the first two are on every answer. */
export const HEADERS = {
  "X-Gw-Api-Version": header("The API release date.", { type: "string", const: API_VERSION }),
  "X-Gw-Request-Id": header("`req_<id>`, also in the body's `gw.request_id` and error envelope.", { type: "string", pattern: "^req_" }),
  "X-Gw-Model": header("The model that answered."),
  "X-Gw-Provider": header("The provider that answered; `sandbox` for a test key, `cache` for a cache hit."),
  "X-Gw-Cache": header("`exact`, `semantic` or `miss`.", { type: "string", enum: ["exact", "semantic", "miss"] }),
  "Idempotent-Replayed": header("`true` when a stored result was replayed (docs/idempotency.md).", { type: "string", const: "true" }),
  "Retry-After": header("Seconds to wait before retrying.", { type: "integer", minimum: 0 }),
  "x-ratelimit-limit-requests": header("When a rate limit applies (docs/rate-limits.md)."),
  "x-ratelimit-remaining-requests": header("When a rate limit applies."),
  "x-ratelimit-reset-requests": header("When a rate limit applies, e.g. `1m2s`."),
  "x-ratelimit-limit-tokens": header("When a token limit applies."),
  "x-ratelimit-remaining-tokens": header("When a token limit applies."),
  "x-ratelimit-reset-tokens": header("When a token limit applies."),
} as const;
export type HeaderName = keyof typeof HEADERS;
export const ALWAYS: readonly HeaderName[] = ["X-Gw-Api-Version", "X-Gw-Request-Id"];
export const ANSWER_HEADERS: readonly HeaderName[] = [
  ...ALWAYS, "X-Gw-Model", "X-Gw-Provider", "X-Gw-Cache", "Idempotent-Replayed",
  "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens",
];

const headerParam = (name: string, description: string, schema: object) => ({ name, in: "header", required: false, description, schema });

/** Request headers of the pipeline endpoints (docs/api.md "Request headers"). */
export const PARAMETERS = {
  IdempotencyKey: headerParam("Idempotency-Key", "An identical request replays the stored result (docs/idempotency.md).", { type: "string", minLength: 1 }),
  XGwSession: headerParam("X-Gw-Session", "A conversation id: sticky routing and provider-cache reuse across turns.", { type: "string", maxLength: LIMITS.labelLength }),
  XGwTraceId: headerParam("X-Gw-Trace-Id", "Requests with the same id share a trace.", { type: "string", maxLength: LIMITS.traceIdLength }),
  XGwParentSpan: headerParam("X-Gw-Parent-Span", "The request's root span becomes a child of this span.", { type: "string", maxLength: LIMITS.parentSpanLength }),
  XGwCache: headerParam("X-Gw-Cache", "`off`: the response cache is neither read nor written.", { type: "string", enum: ["off"] }),
  XGwCacheScope: headerParam("X-Gw-Cache-Scope", "Cached answers are shared only inside this scope.", { type: "string" }),
} as const;
export const PIPELINE_PARAMETERS = Object.keys(PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` }));

/** Bearer keys carry scopes; the admin token is a bearer of its own (docs/api.md "Authentication"). */
export const SECURITY_SCHEMES = {
  apiKey: {
    type: "http", scheme: "bearer", bearerFormat: "gw_live_... or gw_test_...",
    description: `A project key. Scopes: ${KEY_SCOPES.join(", ")}; each operation names the one it needs.`,
  },
  adminToken: { type: "http", scheme: "bearer", description: "GW_ADMIN_TOKEN; the admin API exists only when it is set." },
  anthropicApiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "A project key, as the Anthropic SDKs send it (the Messages API only)." },
} as const;
