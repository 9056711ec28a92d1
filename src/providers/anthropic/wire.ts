// The Anthropic Messages API request body, as gw writes it (types only).

/** A prompt-cache breakpoint; set only by cache-breakpoints.ts. */
export interface CacheControl { type: "ephemeral" }
type Cacheable = { cache_control?: CacheControl };

export interface TextBlock extends Cacheable { type: "text"; text: string }
export type ImageSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
export type ContentBlock =
  | TextBlock
  | ({ type: "image"; source: ImageSource } & Cacheable)
  | ({ type: "tool_use"; id: string; name: string; input: unknown } & Cacheable)
  | ({ type: "tool_result"; tool_use_id: string; content?: string | ContentBlock[] } & Cacheable);

export interface AnthropicMessage { role: "user" | "assistant"; content: ContentBlock[] }
export interface AnthropicTool extends Cacheable { name: string; description?: string; input_schema: Record<string, unknown> }
export type AnthropicToolChoice =
  | { type: "auto" | "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };

export interface MessagesBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: TextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  stream?: boolean;
}
