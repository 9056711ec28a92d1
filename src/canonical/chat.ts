// The canonical chat request every layer speaks: OpenAI's shape (docs/api.md), mapped by the
// adapters and the ingress codecs at the edges. Messages, tools, tool choice and response format
// are the static types of the schema that validates them (schema/chat-completions.ts).
import type { Static } from "@sinclair/typebox";
import type {
  ChatMessageSchema, FunctionToolSchema, ResponseFormatSchema, ToolCallSchema, ToolChoiceSchema,
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

/** The OpenAI chat request as gw forwards it; unknown OpenAI fields (seed, n, logprobs...) ride along. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
  /** null passes the schema too (OpenAI reads it as unset); typed out until every adapter reads
   * it so (parse.ts casts meanwhile). */
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number | null;
  top_p?: number | null;
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  [extra: string]: unknown;
}

