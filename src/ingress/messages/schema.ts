// POST /messages and /messages/count_tokens bodies (docs/anthropic.md): Anthropic's Messages request
// as far as gw serves it. Unknown fields pass (and are ignored); gw's extension fields are checked
// by the chat schema once request.ts made a chat body. Content blocks are checked one by one.
import { Type, type Static } from "@sinclair/typebox";

const open = { additionalProperties: true } as const;
const Str = Type.String();
const NonEmpty = Type.String({ minLength: 1 });
const JsonObject = Type.Record(Str, Type.Unknown());
const ToolName = Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-zA-Z0-9_-]+$" });

export const TextBlockSchema = Type.Object({ type: Type.Literal("text"), text: Str }, open);
const ImageSource = Type.Union([
  Type.Object({ type: Type.Literal("base64"), media_type: NonEmpty, data: NonEmpty }, open),
  Type.Object({ type: Type.Literal("url"), url: NonEmpty }, open),
]);
const ImageBlock = Type.Object({ type: Type.Literal("image"), source: ImageSource }, open);
const ToolUseBlock = Type.Object({ type: Type.Literal("tool_use"), id: NonEmpty, name: ToolName, input: Type.Unknown() }, open);
const ToolResultBlock = Type.Object({
  type: Type.Literal("tool_result"),
  tool_use_id: NonEmpty,
  content: Type.Optional(Type.Union([Str, Type.Array(Type.Union([TextBlockSchema, ImageBlock]))])),
  is_error: Type.Optional(Type.Boolean()),
}, open);
/** Reasoning that came back from an Anthropic model in an agent loop; gw drops it (docs/anthropic.md). */
const ThinkingBlock = Type.Object({ type: Type.Union([Type.Literal("thinking"), Type.Literal("redacted_thinking")]) }, open);

/** Each block kind on its own, so that a bad block's error names its field. */
export const BLOCK_KINDS = {
  text: TextBlockSchema, image: ImageBlock, tool_use: ToolUseBlock, tool_result: ToolResultBlock,
  thinking: ThinkingBlock, redacted_thinking: ThinkingBlock,
};
export type TextBlock = Static<typeof TextBlockSchema>;
export type ImageBlock = Static<typeof ImageBlock>;
export type ToolUseBlock = Static<typeof ToolUseBlock>;
export type ToolResultBlock = Static<typeof ToolResultBlock>;
export type Block = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | Static<typeof ThinkingBlock>;

const Message = Type.Object({
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
  // Blocks are checked by kind (BLOCK_KINDS) before the body: here only that they are objects.
  content: Type.Union([Str, Type.Array(Type.Object({ type: NonEmpty }, open))]),
}, open);

export const ToolSchema = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal("custom"), Type.Null()])),
  name: ToolName,
  description: Type.Optional(Str),
  input_schema: JsonObject,
}, open);

export const ToolChoiceSchema = Type.Union([
  Type.Object({ type: Type.Union([Type.Literal("auto"), Type.Literal("any"), Type.Literal("none")]), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }, open),
  Type.Object({ type: Type.Literal("tool"), name: ToolName, disable_parallel_tool_use: Type.Optional(Type.Boolean()) }, open),
]);

/** What count_tokens reads: the prompt, without max_tokens and the sampling fields. */
const promptFields = {
  model: NonEmpty,
  messages: Type.Array(Message, { minItems: 1 }),
  system: Type.Optional(Type.Union([Str, Type.Array(TextBlockSchema)])),
  tools: Type.Optional(Type.Array(ToolSchema)),
  tool_choice: Type.Optional(ToolChoiceSchema),
};

export const CountTokensBody = Type.Object(promptFields, open);
export type CountTokensBody = Static<typeof CountTokensBody>;

export const MessagesBody = Type.Object({
  ...promptFields,
  max_tokens: Type.Integer({ minimum: 1 }),
  stop_sequences: Type.Optional(Type.Array(Str)),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_k: Type.Optional(Type.Integer({ minimum: 0 })),
  stream: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Str, Type.Null()])) }, { additionalProperties: Str })),
}, open);
export type MessagesBody = Static<typeof MessagesBody>;
