// Token counts with gpt-tokenizer (o200k_base): exact counts for routing near a limit, test-mode
// usage and streams an upstream did not meter. The tokenizer's tables take about 80 MB, so they
// load on first use: ordinary live traffic never needs them (routing checks a byte bound first).
import type { ChatMessage } from "../providers/types.ts";

type Tokenizer = typeof import("gpt-tokenizer");
let tokenizer: Tokenizer | null = null;
// A static require, so bundling (and `bun build --compile`) still includes the package.
const load = (): Tokenizer => (tokenizer ??= require("gpt-tokenizer") as Tokenizer);

/** OpenAI's chat framing: a few tokens per message plus the reply primer. */
const PER_MESSAGE = 3;
const REPLY_PRIMER = 3;

export const countTextTokens = (text: string): number => (text.length === 0 ? 0 : load().countTokens(text));

/** Cuts text to at most `limit` tokens, as a model stops at max_tokens. */
export function truncateToTokens(text: string, limit: number): { text: string; cut: boolean } {
  // Tokens never outnumber bytes, so a text within the limit in bytes needs no tokenizing.
  if (Buffer.byteLength(text) <= limit) return { text, cut: false };
  const { encode, decode } = load();
  const tokens = encode(text);
  return tokens.length <= limit ? { text, cut: false } : { text: decode(tokens.slice(0, limit)), cut: true };
}

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
