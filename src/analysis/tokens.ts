// Token counts with gpt-tokenizer (o200k_base): prompt estimates for routing and test mode usage.
import { countTokens } from "gpt-tokenizer";
import type { ChatMessage } from "../providers/types.ts";

/** OpenAI's chat framing: a few tokens per message plus the reply primer. */
const PER_MESSAGE = 3;
const REPLY_PRIMER = 3;

export const countTextTokens = (text: string): number => (text.length === 0 ? 0 : countTokens(text));

export function messageText(message: ChatMessage): string {
  const { content } = message;
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    for (const part of content) if (typeof part.text === "string") text += (text ? "\n" : "") + part.text;
  }
  if (message.tool_calls) {
    for (const call of message.tool_calls) text += `\n${call.function.name}(${call.function.arguments})`;
  }
  return text;
}

export function countMessageTokens(messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMER;
  for (const m of messages) total += PER_MESSAGE + countTextTokens(messageText(m)) + (m.name ? 1 : 0);
  return total;
}

/**
 * A strict upper bound without running the tokenizer: a byte-level BPE token is at least one UTF-8
 * byte, so bytes >= tokens. Routing checks limits on this bound and counts exactly only when a
 * limit fails on it, so the tokenizer stays off the request path for ordinary prompts.
 */
export function boundMessageTokens(messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMER;
  for (const m of messages) total += PER_MESSAGE + Buffer.byteLength(messageText(m)) + (m.name ? 1 : 0);
  return total;
}
