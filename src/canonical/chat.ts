// The canonical chat request every layer speaks: OpenAI's shape (docs/api.md), mapped by the
// adapters and the ingress codecs at the edges. Messages, tools, tool choice and response format
// are the static types of the schema that validates them (schema/chat-completions.ts).
import type { Static } from "@sinclair/typebox";
import type {
  ChatMessageSchema, ChatRequestSchema, FunctionToolSchema, ResponseFormatSchema, ToolCallSchema, ToolChoiceSchema,
} from "../schema/chat-completions.ts";

export interface ContentPart {
  type: string;
  text?: string;
  image_url?: { url: string; detail?: string } | string;
  [extra: string]: unknown;
}

export type ToolCall = Static<typeof ToolCallSchema>;

/** A message: the schema's, with content parts as loose as the codecs and adapters map them. */
export type ChatMessage = Omit<Static<typeof ChatMessageSchema>, "content"> & {
  content?: string | ContentPart[] | null;
  [extra: string]: unknown;
};

export type FunctionTool = Static<typeof FunctionToolSchema>;

export type ToolChoice = Static<typeof ToolChoiceSchema>;

export type ResponseFormat = Static<typeof ResponseFormatSchema>;

/** The OpenAI chat request as gw forwards it: the schema's OpenAI fields (gw's own left at parse);
 * unknown OpenAI fields (seed, n, logprobs...) ride along. */
export type ChatRequest = Omit<Static<typeof ChatRequestSchema>, "messages"> & {
  messages: ChatMessage[];
  [extra: string]: unknown;
};
