// POST /chat/completions body (docs/api.md "Chat completions", "Extension fields"). Unknown
// fields are accepted: OpenAI clients send seed, n, logprobs, stream_options and more.
import { Type, type Static } from "@sinclair/typebox";
import { LIMITS } from "../config/constants.ts";

const open = { additionalProperties: true } as const;
const Str = Type.String();
const NonEmpty = Type.String({ minLength: 1 });

const TextPart = Type.Object({ type: Type.Literal("text"), text: Str }, open);
const ImagePart = Type.Object({
  type: Type.Literal("image_url"),
  image_url: Type.Union([Str, Type.Object({ url: NonEmpty, detail: Type.Optional(Str) }, open)]),
}, open);
export const ContentPartSchema = Type.Union([TextPart, ImagePart]);

export const ToolCallSchema = Type.Object({
  id: Str,
  type: Type.Literal("function"),
  function: Type.Object({ name: NonEmpty, arguments: Str }, open),
}, open);

export const ChatMessageSchema = Type.Object({
  role: Type.Union([Type.Literal("system"), Type.Literal("developer"), Type.Literal("user"), Type.Literal("assistant"), Type.Literal("tool")]),
  content: Type.Optional(Type.Union([Str, Type.Array(ContentPartSchema), Type.Null()])),
  name: Type.Optional(Str),
  tool_calls: Type.Optional(Type.Array(ToolCallSchema)),
  tool_call_id: Type.Optional(Str),
}, open);

export const FunctionToolSchema = Type.Object({
  type: Type.Literal("function"),
  function: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-zA-Z0-9_-]+$" }),
    description: Type.Optional(Str),
    parameters: Type.Optional(Type.Record(Str, Type.Unknown())),
    strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  }, open),
}, open);

export const ToolChoiceSchema = Type.Union([
  Type.Literal("none"), Type.Literal("auto"), Type.Literal("required"),
  Type.Object({ type: Type.Literal("function"), function: Type.Object({ name: NonEmpty }, open) }, open),
]);

export const ResponseFormatSchema = Type.Union([
  Type.Object({ type: Type.Literal("text") }, open),
  Type.Object({ type: Type.Literal("json_object") }, open),
  Type.Object({
    type: Type.Literal("json_schema"),
    json_schema: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 64 }),
      schema: Type.Optional(Type.Record(Str, Type.Unknown())),
      strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      description: Type.Optional(Str),
    }, open),
  }, open),
]);

const Tag = Type.String({ minLength: 1, maxLength: LIMITS.tagLength });
/** Caller labels that are stored with the request (docs/api.md "Limits"). */
const Label = Type.String({ maxLength: LIMITS.labelLength });
const MetaValue = Type.String({ maxLength: LIMITS.metadataValueLength });

/** The OpenAI chat fields gw reads; any other OpenAI field rides along (additionalProperties). */
const chatFields = {
  model: Type.Optional(NonEmpty),
  messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
  tools: Type.Optional(Type.Array(FunctionToolSchema, { maxItems: LIMITS.toolsPerRequest })),
  tool_choice: Type.Optional(ToolChoiceSchema),
  response_format: Type.Optional(ResponseFormatSchema),
  max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  max_completion_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
  top_p: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
  stop: Type.Optional(Type.Union([Str, Type.Array(Str, { maxItems: 4 }), Type.Null()])),
  n: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 128 }), Type.Null()])),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  user: Type.Optional(Type.String({ maxLength: LIMITS.userLength })),
};

/** gw's extension fields (docs/api.md "Extension fields"): read by gw, never sent upstream. */
const gwFields = {
  routing: Type.Optional(Type.Object({
    mode: Type.Optional(Type.Union([Type.Literal("economy"), Type.Literal("balanced"), Type.Literal("quality"), Type.Literal("max")])),
    min_quality: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  }, open)),
  max_cost: Type.Optional(Type.Number({ minimum: 0 })),
  optimization: Type.Optional(Type.Record(Str, Type.Unknown())),
  // OpenAI's metadata rules: string values, at most 16 keys (key length: parse.ts checkLabels).
  metadata: Type.Optional(Type.Object({
    task: Type.Optional(MetaValue),
    priority: Type.Optional(Type.Union([Type.Literal("realtime"), Type.Literal("batch"), Type.Literal("normal")])),
    customer_tier: Type.Optional(MetaValue),
    step: Type.Optional(Label),
    session_id: Type.Optional(Str),
  }, { additionalProperties: MetaValue, maxProperties: LIMITS.metadataKeys })),
  tags: Type.Optional(Type.Array(Tag, { maxItems: LIMITS.tagsPerRequest })),
  cache: Type.Optional(Type.Object({
    mode: Type.Optional(Type.Union([Type.Literal("bypass"), Type.Literal("default")])),
    refresh: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Tag, { maxItems: LIMITS.tagsPerRequest })),
  }, open)),
  gw: Type.Optional(Type.Object({
    step: Type.Optional(Label),
    workflow_id: Type.Optional(Label),
    workflow_budget: Type.Optional(Type.Number({ minimum: 0 })),
    versions: Type.Optional(Type.Object({
      prompt: Type.Optional(Label), tools: Type.Optional(Label), knowledge: Type.Optional(Label), memory: Type.Optional(Label),
    }, open)),
    session_id: Type.Optional(Str),
    agent: Type.Optional(Label),
    cache: Type.Optional(Type.Object({ tags: Type.Optional(Type.Array(Tag, { maxItems: LIMITS.tagsPerRequest })) }, open)),
  }, open)),
};

export const ChatCompletionsBody = Type.Object({ ...chatFields, ...gwFields }, open);
export type ChatCompletionsBody = Static<typeof ChatCompletionsBody>;

/** The chat request as adapters receive it: the OpenAI fields only, `model` resolved. */
export const ChatRequestSchema = Type.Object({ ...chatFields, model: NonEmpty }, open);
export const GwOptionsSchema = Type.Object(gwFields);
export type GwOptions = Static<typeof GwOptionsSchema>;
/** The names of gw's extension fields, stripped from the body once, at parse. */
export const GW_OPTION_NAMES: ReadonlyArray<keyof GwOptions> = Object.keys(gwFields) as Array<keyof GwOptions>;
