// Token counts with gpt-tokenizer (o200k_base; docs/routing.md "Analysis"): exact up to
// EXACT_CHARS, a sampled estimate beyond (token-pieces.ts). The tables load before the server
// listens (preloadTokenizer), or on first use in tools.
import type { ChatMessage } from "../canonical/chat.ts";
import { asciiPretokenEnd, isAscii } from "./pretokens-ascii.ts";
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
  pretokens = pretokenRegex(tokenizer);
  asciiSplit = pretokens?.source === O200K_SPLIT;
  return tokenizer;
};

/** The encoding's own pretokenizer (o200k's split regex), read from the library so the split is
 * its split; null if a future version hides it, and counting then goes through the library whole. */
let pretokens: RegExp | null = null;
/** pretokens-ascii.ts splits as this regex does, so it serves only while the library uses it. */
const O200K_SPLIT = String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`;
let asciiSplit = false;
function pretokenRegex(t: Tokenizer): RegExp | null {
  const core: unknown = Reflect.get(Reflect.get(t, "default") ?? {}, "bytePairEncodingCoreProcessor");
  const re: unknown = core && typeof core === "object" ? Reflect.get(core, "tokenSplitRegex") : null;
  return re instanceof RegExp && re.global ? re : null;
}

/** Token counts of recent pretokens (a word with its leading space, a number run, a punctuation
 * run). BPE counts pretokens independently, so the sum over them is the library's count, exact;
 * the library spends ~2.6 µs per pretoken, a hit here ~0.1. Full: emptied, not evicted one by one. */
const PRETOKEN_MEMO_SIZE = 65_536;
const PRETOKEN_MEMO_CHARS = 32;
const pretokenMemo = new Map<string, number>();

function countPretokens(text: string): number {
  const t = load();
  if (pretokens === null) return t.countTokens(text, AS_TEXT);
  let total = 0;
  if (asciiSplit && isAscii(text)) {
    for (let i = 0; i < text.length; ) {
      const end = asciiPretokenEnd(text, i);
      total += end - i <= SHORT_CHARS ? countShort(t, text, i, end) : countPretoken(t, text.slice(i, end));
      i = end;
    }
    return total;
  }
  for (const [piece] of text.matchAll(pretokens)) total += countPretoken(t, piece);
  return total;
}

/** Pretokens of up to SHORT_CHARS ASCII characters (nine in ten of a JSON tool result) are
 * memoised under a number packing their length and codes (below 8 * 128^7 < 2^53: exact, and
 * distinct for distinct pretokens): no slice, no string hash. */
const SHORT_CHARS = 7;
const shortMemo = new Map<number, number>();

function countShort(t: Tokenizer, text: string, from: number, to: number): number {
  let key = to - from;
  for (let i = from; i < to; i++) key = key * 128 + text.charCodeAt(i);
  const known = shortMemo.get(key);
  if (known !== undefined) return known;
  const n = t.countTokens(text.slice(from, to), AS_TEXT);
  if (shortMemo.size >= PRETOKEN_MEMO_SIZE) shortMemo.clear();
  shortMemo.set(key, n);
  return n;
}

function countPretoken(t: Tokenizer, piece: string): number {
  const known = pretokenMemo.get(piece);
  if (known !== undefined) return known;
  const n = t.countTokens(piece, AS_TEXT);
  if (piece.length <= PRETOKEN_MEMO_CHARS) {
    if (pretokenMemo.size >= PRETOKEN_MEMO_SIZE) pretokenMemo.clear();
    pretokenMemo.set(piece, n);
  }
  return n;
}

/** Loads the tables now (0.7-2 s of CPU): the server calls it before it listens, so the first
 * request that needs a count does not stall every other one (docs/availability.md). */
export const preloadTokenizer = (): void => void load();

/** OpenAI's chat framing: a few tokens per message plus the reply primer. */
const PER_MESSAGE = 3;
const REPLY_PRIMER = 3;

// Special-token text in a prompt ("<|endoftext|>") is ordinary text to count, not an error.
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const countPiece = (piece: string): number => countPretokens(piece);

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
  // An exact count reads the memo: most answers fit and are never encoded.
  if (text.length <= EXACT_CHARS && countPretokens(text) <= limit) return { text, cut: false };
  const { encode, decode } = load();
  return { text: decode(encode(text, AS_TEXT).slice(0, limit)), cut: true };
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
