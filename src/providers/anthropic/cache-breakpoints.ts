// Anthropic prompt-cache breakpoints (docs/providers.md "Anthropic prompt caching"): at most three
// `cache_control: {type: "ephemeral"}` marks on the stable prefix of a Messages body, each only past
// the model's minimum cacheable length, on copies of the blocks. Pure; no tokenizer runs here.
import type { AnthropicMessage, AnthropicTool, CacheControl, ContentBlock, MessagesBody } from "./wire.ts";

/** Anthropic's limit per request. */
export const MAX_BREAKPOINTS = 4;
const BYTES_PER_TOKEN = 3;
/** About what Anthropic charges for an image near its 1.15-megapixel resize limit. */
const IMAGE_TOKENS = 1_600;
const DEFAULT_MINIMUM = 1_024;

/** Minimum cacheable prompt length by upstream model id (first match; ids may carry a date or a
 * cloud prefix, hence `includes`). Anthropic's docs: 4,096 for Haiku 4.5 and Opus 4.5/4.6, 2,048
 * for Haiku 3/3.5; 1,024 for Sonnet 4/4.5/4.6, Opus 4/4.1 and, as the default, for the rest. */
const MINIMUMS: ReadonlyArray<readonly [string, number]> = [
  ["claude-haiku-4", 4_096],
  ["haiku", 2_048],
  ["claude-opus-4-5", 4_096],
  ["claude-opus-4-6", 4_096],
  ["claude-opus-4-7", 2_048], // published figures disagree (2,048 / 4,096): the lower one
];

export function minimumCacheableTokens(upstreamModel: string): number {
  const id = upstreamModel.toLowerCase();
  for (const [key, minimum] of MINIMUMS) if (id.includes(key)) return minimum;
  return DEFAULT_MINIMUM;
}

/** A high-side token estimate (see the header): cheap, no tokenizer. */
export const estimateTextTokens = (text: string): number => Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN;

function blockTokens(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return estimateTextTokens(block.text);
    case "image":
      return IMAGE_TOKENS;
    case "tool_use":
      return estimateTextTokens(block.name) + estimateTextTokens(JSON.stringify(block.input ?? {}));
    case "tool_result": {
      const content = block.content ?? [];
      if (typeof content === "string") return estimateTextTokens(content);
      return content.reduce((sum, b) => sum + blockTokens(b), 0);
    }
    default:
      return 0;
  }
}

const toolTokens = (tool: AnthropicTool): number =>
  estimateTextTokens(tool.name) + estimateTextTokens(tool.description ?? "") + estimateTextTokens(JSON.stringify(tool.input_schema));

/** Blocks that take a mark: non-empty text, images, tool_use and tool_result (thinking does not). */
function cacheable(block: ContentBlock): boolean {
  switch (block.type) {
    case "text":
      return block.text.length > 0;
    case "image":
    case "tool_use":
    case "tool_result":
      return true;
    default:
      return false;
  }
}

const mark = (): CacheControl => ({ type: "ephemeral" });

/** A copy of `items` whose item `at` carries the mark; the others are the same objects. */
function markAt<T extends object>(items: readonly T[], at: number): T[] {
  return items.map((item, i) => (i === at ? { ...item, cache_control: mark() } : item));
}

/** The last block before the final user turn that can take a mark, as [message, block] indexes. */
function historyBreakpoint(messages: readonly AnthropicMessage[]): [number, number] | null {
  const finalUser = messages.findLastIndex((m) => m.role === "user");
  for (let i = finalUser - 1; i >= 0; i--) {
    const content = messages[i]?.content ?? [];
    for (let j = content.length - 1; j >= 0; j--) {
      const block = content[j];
      if (block && cacheable(block)) return [i, j];
    }
  }
  return null;
}

/** Whether any block already carries a mark: the caller placed their own, and gw adds none (their
 * choice stands, and theirs plus gw's could pass Anthropic's limit of four, a 400). */
export function hasMarks(body: MessagesBody): boolean {
  for (const tool of body.tools ?? []) if (tool.cache_control) return true;
  for (const block of body.system ?? []) if (block.cache_control) return true;
  for (const m of body.messages) {
    for (const block of m.content) {
      if (block.cache_control) return true;
      if (block.type === "tool_result" && Array.isArray(block.content) && block.content.some((b) => b.cache_control)) return true;
    }
  }
  return false;
}

/** The body with cache breakpoints on its stable prefix; the same object when none is due or the
 * caller placed their own. */
export function withCacheBreakpoints(body: MessagesBody): MessagesBody {
  if (hasMarks(body)) return body;
  const minimum = minimumCacheableTokens(body.model);
  const out: MessagesBody = { ...body }; // replacing keys in place keeps their order on the wire
  let placed = 0;
  // Only whether the prefix reaches the minimum matters, so counting stops there: a long agent
  // history costs no more to check than a short one.
  let prefix = 0;

  const tools = body.tools ?? [];
  for (const tool of tools) if (prefix < minimum) prefix += toolTokens(tool);
  if (tools.length > 0 && prefix >= minimum) {
    out.tools = markAt(tools, tools.length - 1);
    placed++;
  }

  const system = body.system ?? [];
  for (const block of system) if (prefix < minimum) prefix += estimateTextTokens(block.text);
  const lastSystem = system.findLastIndex(cacheable);
  if (lastSystem >= 0 && prefix >= minimum) {
    out.system = markAt(system, lastSystem);
    placed++;
  }

  const at = historyBreakpoint(body.messages);
  if (at !== null) {
    const [mi, bi] = at;
    for (const [i, m] of body.messages.slice(0, mi + 1).entries()) {
      for (const block of i < mi ? m.content : m.content.slice(0, bi + 1)) if (prefix < minimum) prefix += blockTokens(block);
    }
    const message = body.messages[mi];
    if (message && prefix >= minimum) {
      out.messages = body.messages.map((m, i) => (i === mi ? { ...message, content: markAt(message.content, bi) } : m));
      placed++;
    }
  }
  return placed > 0 ? out : body;
}
