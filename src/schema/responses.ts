// POST /responses body (docs/api.md "Responses"): OpenAI's Responses request as far as gw serves it.
// Extension fields are checked by the chat schema once the codec (ingress/responses) made a chat
// request; unknown fields pass, unsupported ones are refused by the codec.
import { Type, type Static } from "@sinclair/typebox";

const open = { additionalProperties: true } as const;
const Str = Type.String();
const NonEmpty = Type.String({ minLength: 1 });
const ToolName = Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-zA-Z0-9_-]+$" });
const JsonObject = Type.Record(Str, Type.Unknown());

const TextPart = Type.Object({
  type: Type.Union([Type.Literal("input_text"), Type.Literal("output_text"), Type.Literal("text")]),
  text: Str,
}, open);
const ImagePart = Type.Object({
  type: Type.Literal("input_image"),
  image_url: Type.Optional(NonEmpty),
  file_id: Type.Optional(Str),
  detail: Type.Optional(Type.Union([Type.Literal("low"), Type.Literal("high"), Type.Literal("auto")])),
}, open);
const RefusalPart = Type.Object({ type: Type.Literal("refusal"), refusal: Str }, open);
export const InputPartSchema = Type.Union([TextPart, ImagePart, RefusalPart]);

const MessageItem = Type.Object({
  type: Type.Optional(Type.Literal("message")),
  role: Type.Union(["system", "developer", "user", "assistant"].map((r) => Type.Literal(r))),
  content: Type.Union([Str, Type.Array(InputPartSchema)]),
}, open);
const FunctionCallItem = Type.Object({
  type: Type.Literal("function_call"),
  call_id: NonEmpty,
  name: ToolName,
  arguments: Str,
  id: Type.Optional(Str),
}, open);
const FunctionCallOutputItem = Type.Object({
  type: Type.Literal("function_call_output"),
  call_id: NonEmpty,
  output: Type.Union([Str, Type.Array(InputPartSchema)]),
}, open);
/** Reasoning items come back from reasoning models in an agent loop; gw drops them (stateless). */
const ReasoningItem = Type.Object({ type: Type.Literal("reasoning") }, open);
export const InputItemSchema = Type.Union([MessageItem, FunctionCallItem, FunctionCallOutputItem, ReasoningItem]);
/** Each item kind on its own, so that a bad item's error names the field, not just `input[i]`. */
export const INPUT_ITEM_KINDS = { message: MessageItem, function_call: FunctionCallItem, function_call_output: FunctionCallOutputItem, reasoning: ReasoningItem };

/** Responses' flat function tool, and the chat format gw also accepts (docs/api.md "Responses"). */
const FlatFunctionTool = Type.Object({
  type: Type.Literal("function"),
  name: ToolName,
  description: Type.Optional(Type.Union([Str, Type.Null()])),
  parameters: Type.Optional(Type.Union([JsonObject, Type.Null()])),
  strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
}, open);
const ChatFunctionTool = Type.Object({
  type: Type.Literal("function"),
  function: Type.Object({ name: ToolName }, open),
}, open);

const ToolChoiceSchema = Type.Union([
  Type.Literal("none"), Type.Literal("auto"), Type.Literal("required"),
  Type.Object({ type: Type.Literal("function"), name: NonEmpty }, open),
  Type.Object({ type: Type.Literal("function"), function: Type.Object({ name: NonEmpty }, open) }, open),
]);

const TextFormatSchema = Type.Union([
  Type.Object({ type: Type.Literal("text") }, open),
  Type.Object({ type: Type.Literal("json_object") }, open),
  Type.Object({
    type: Type.Literal("json_schema"),
    name: Type.String({ minLength: 1, maxLength: 64 }),
    schema: JsonObject,
    strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    description: Type.Optional(Str),
  }, open),
]);

export const ResponsesBody = Type.Object({
  model: Type.Optional(NonEmpty),
  input: Type.Union([Str, Type.Array(InputItemSchema, { minItems: 1 })]),
  instructions: Type.Optional(Type.Union([Str, Type.Null()])),
  max_output_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
  top_p: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
  tools: Type.Optional(Type.Array(Type.Union([ChatFunctionTool, FlatFunctionTool]), { maxItems: 128 })),
  tool_choice: Type.Optional(ToolChoiceSchema),
  parallel_tool_calls: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  text: Type.Optional(Type.Object({ format: Type.Optional(TextFormatSchema) }, open)),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  store: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
}, open);

export type ResponsesBody = Static<typeof ResponsesBody>;
export type InputItem = Static<typeof InputItemSchema>;
export type InputPart = Static<typeof InputPartSchema>;
