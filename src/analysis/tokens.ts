// Token counts with gpt-tokenizer (o200k_base; docs/routing.md "Analysis"): exact up to
// EXACT_CHARS, a sampled estimate beyond (token-pieces.ts). The tables load before the server
// listens (preloadTokenizer), or on first use in tools.
import type { ChatMessage } from "../canonical/chat.ts";
import { EXACT_CHARS, estimateBySample } from "./token-pieces.ts";

type Tokenizer = typeof import("gpt-tokenizer");
let tokenizer: Tokenizer | null = null;
// A static require, so bundling (and `bun build --compile`) still includes the package.
// No merge cache: its LRU (delete and re-insert in a 100k-entry Map) degrades in Bun to ~40 µs
// per character on base64 after a while; without it the worst text costs ~3 µs per character.
const load = (): Tokenizer => {
  if (tokenizer) return tokenizer;
  tokenizer = require("gpt-tokenizer") as Tokenizer;
  tokenizer.setMergeCacheSize(0);
  return tokenizer;
};

/** Loads the tables now (0.7-2 s of CPU): the server calls it before it listens, so the first
 * request that needs a count does not stall every other one (docs/availability.md). */
export const preloadTokenizer = (): void => void load();

/** OpenAI's chat framing: a few tokens per message plus the reply primer. */
const PER_MESSAGE = 3;
const REPLY_PRIMER = 3;

// Special-token text in a prompt ("<|endoftext|>") is ordinary text to count, not an error.
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const countPiece = (piece: string): number => load().countTokens(piece, AS_TEXT);

/** Exact up to EXACT_CHARS (bar a token per cut of a very long run), a sampled estimate beyond. */
export const countTextTokens = (text: string): number => (text.length === 0 ? 0 : estimateBySample(countPiece, text));

/** Several texts of one request (embeddings input) within one budget: past EXACT_CHARS in all,
 * one sample over them together. */
export function countTextsTokens(texts: readonly string[]): number {
  let units = 0;
  for (const t of texts) units += t.length;
  if (units <= EXACT_CHARS) return texts.reduce((n, t) => n + countTextTokens(t), 0);
  return estimateBySample(countPiece, texts.join("\n"));
}

/** Cuts text to at most `limit` tokens, as a model stops at max_tokens. */
export function truncateToTokens(text: string, limit: number): { text: string; cut: boolean } {
  // Tokens never outnumber bytes, so a text within the limit in bytes needs no tokenizing.
  if (Buffer.byteLength(text) <= limit) return { text, cut: false };
  const { encode, decode } = load();
  const tokens = encode(text, AS_TEXT);
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

/** The prompt's tokens with the chat framing; one budget for all messages (countTextsTokens). */
export function countMessageTokens(messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMER;
  for (const m of messages) total += PER_MESSAGE + (m.name ? 1 : 0);
  return total + countTextsTokens(messages.map(messageText));
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
