// Anthropic prompt-cache breakpoints (docs/providers.md "Anthropic prompt caching"): where gw puts
// cache_control, the per-model minimums, byte-stable prefixes across agent turns, cache usage end to
// end through anthropicProvider, and the scripted upstream's cache_control checks (via the SDK).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import Anthropic, { BadRequestError } from "@anthropic-ai/sdk";
import { anthropicProvider } from "../../src/providers/anthropic/index.ts";
import {
  MAX_BREAKPOINTS, estimateTextTokens, minimumCacheableTokens, withCacheBreakpoints,
} from "../../src/providers/anthropic/cache-breakpoints.ts";
import { toMessagesBody } from "../../src/providers/anthropic/request.ts";
import type { MessagesBody } from "../../src/providers/anthropic/wire.ts";
import type { ChatMessage, ChatRequest, FunctionTool, ToolCall } from "../../src/canonical/chat.ts";
import type { Provider, ProviderCall } from "../../src/providers/types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import { type ScriptedAnthropic, startScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { weatherTool } from "../fixtures/tools.ts";

function catalogModel(id: string): CatalogModel {
  const model = buildCatalog().get(id);
  if (!model) throw new Error(`catalog lacks ${id}`);
  return model;
}
const sonnet = catalogModel("anthropic/claude-sonnet-4-5");
const haiku = catalogModel("anthropic/claude-haiku-4-5");
const haiku35 = catalogModel("anthropic/claude-3-5-haiku-latest");

/** ASCII text of exactly `bytes` bytes (estimated at bytes / 3 tokens). */
const text = (bytes: number, seed = "Policy clause. "): string => seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);
const LONG = text(6_000); // ~2,000 estimated tokens: above Sonnet's 1,024, below Haiku 4.5's 4,096
const longTool: FunctionTool = {
  type: "function",
  function: { ...weatherTool.function, name: "search_docs", description: text(4_000, "Searches the handbook. ") },
};

const body = (request: Partial<ChatRequest>, model: CatalogModel = sonnet): MessagesBody =>
  toMessagesBody({ model, request: { model: model.id, messages: [{ role: "user", content: "hi" }], ...request } });

/** Where the body carries cache_control, as paths (tools.i, system.i, messages.i.content.j). */
function marks(b: MessagesBody): string[] {
  const out: string[] = [];
  b.tools?.forEach((t, i) => t.cache_control && out.push(`tools.${i}`));
  b.system?.forEach((s, i) => s.cache_control && out.push(`system.${i}`));
  b.messages.forEach((m, i) => m.content.forEach((c, j) => c.cache_control && out.push(`messages.${i}.content.${j}`)));
  for (const mark of [...(b.tools ?? []), ...(b.system ?? []), ...b.messages.flatMap((m) => m.content)]) {
    if (mark.cache_control) expect(mark.cache_control).toEqual({ type: "ephemeral" });
  }
  expect(out.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
  return out;
}

/** The wire JSON without the marks: what Anthropic hashes for the prefix. */
const unmarked = (v: unknown): string => JSON.stringify(v, (k, x: unknown) => (k === "cache_control" ? undefined : x));

const toolCall = (id: string, city: string): ToolCall => ({ id, type: "function", function: { name: "search_docs", arguments: JSON.stringify({ city, days: 1 }) } });
/** An OpenAI-style agent loop after `steps` tool round trips (each result a long document). */
function agentTurn(steps: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: LONG }, { role: "user", content: "Check the handbook for Paris." }];
  for (let i = 0; i < steps; i++) {
    messages.push({ role: "assistant", content: null, tool_calls: [toolCall(`toolu_${i}`, `city${i}`)] });
    messages.push({ role: "tool", tool_call_id: `toolu_${i}`, content: text(3_000, `Result ${i}. `) });
  }
  return messages;
}

describe('cache breakpoints: placement (docs/providers.md "Anthropic prompt caching")', () => {
  test("short prompts get none: the body is exactly the old mapping (the same object)", () => {
    const b = body({
      tools: [weatherTool],
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        { role: "assistant", content: "Which city?" },
        { role: "user", content: "Paris" },
      ],
    });
    expect(marks(b)).toEqual([]);
    expect(withCacheBreakpoints(b)).toBe(b);
    expect(JSON.stringify(b)).not.toContain("cache_control");
  });

  test("a long system prompt: one mark, on the last system block", () => {
    const b = body({ messages: [{ role: "system", content: "You are the handbook bot." }, { role: "developer", content: LONG }, { role: "user", content: "hi" }] });
    expect(marks(b)).toEqual(["system.1"]);
    expect(b.system?.[1]).toEqual({ type: "text", text: LONG, cache_control: { type: "ephemeral" } });
    expect(b.system?.[0]).toEqual({ type: "text", text: "You are the handbook bot." });
    expect(b.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  test("the prefix counts cumulatively in the order tools -> system -> messages", () => {
    // Neither part alone reaches 1,024 estimated tokens; together they do, so the mark goes on the
    // system block (the first point where the prefix is long enough), not on the tools.
    const half = text(2_000);
    const tool: FunctionTool = { type: "function", function: { ...weatherTool.function, description: half } };
    const b = body({ tools: [tool], messages: [{ role: "system", content: half }, { role: "user", content: "hi" }] });
    expect(marks(b)).toEqual(["system.0"]);
  });

  test("tools + long system + long agent history: last tool, last system block, last history block", () => {
    const messages = agentTurn(2);
    const b = body({ tools: [weatherTool, longTool], messages });
    // system | user, assistant(tool_use), user(tool_result), assistant(tool_use), user(tool_result) <- final user turn
    expect(marks(b)).toEqual(["tools.1", "system.0", "messages.3.content.0"]);
    expect(b.messages[3]?.content[0]).toMatchObject({ type: "tool_use", id: "toolu_1", cache_control: { type: "ephemeral" } });
    expect(b.messages.at(-1)?.content[0]).not.toHaveProperty("cache_control"); // the final user turn changes every turn
    expect(b.tools?.[0]).not.toHaveProperty("cache_control");
  });

  test("the history mark sits before the final user turn, on the last block that can take one", () => {
    const b = body({ messages: [{ role: "user", content: LONG }, { role: "assistant", content: "Noted." }, { role: "user", content: "Summarise it." }] });
    expect(marks(b)).toEqual(["messages.1.content.0"]);
    // A one-message conversation has no history to mark, however long.
    expect(marks(body({ messages: [{ role: "user", content: LONG }] }))).toEqual([]);
    // Ending on an assistant turn: the history is what precedes the last user turn.
    const prefilled = body({ messages: [{ role: "user", content: LONG }, { role: "assistant", content: "Ok" }, { role: "user", content: "Go on" }, { role: "assistant", content: "So" }] });
    expect(marks(prefilled)).toEqual(["messages.1.content.0"]);
  });

  test("never on an empty text block: the mark moves to the block before it", () => {
    const raw: MessagesBody = {
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      messages: [
        { role: "user", content: [{ type: "text", text: LONG }] },
        { role: "assistant", content: [{ type: "text", text: "Noted." }, { type: "text", text: "" }] },
        { role: "user", content: [{ type: "text", text: "Go on" }] },
      ],
    };
    expect(marks(withCacheBreakpoints(raw))).toEqual(["messages.1.content.0"]);
  });

  test("only cache_control is added: same bytes otherwise, inputs untouched, key order kept", () => {
    const raw: MessagesBody = {
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      system: [{ type: "text", text: LONG }],
      tools: [{ name: "search_docs", description: text(4_000), input_schema: { type: "object", properties: {} } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Question" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "search_docs", input: { q: "x" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "found" }] },
      ],
      temperature: 0.2,
    };
    const before = JSON.stringify(raw);
    const marked = withCacheBreakpoints(raw);
    expect(JSON.stringify(raw)).toBe(before); // pure
    expect(unmarked(marked)).toBe(before); // byte-identical once the marks are taken out
    expect(Object.keys(marked)).toEqual(Object.keys(raw));
    expect(marks(marked)).toEqual(["tools.0", "system.0", "messages.1.content.0"]);
    expect(marked.messages[0]).toBe(raw.messages[0]); // untouched parts are shared, not copied
  });

  test("never more than 4 marks, whatever the shape", () => {
    const shapes: Array<Partial<ChatRequest>> = [
      { tools: [longTool, longTool], messages: agentTurn(5) },
      { tools: [longTool], messages: [{ role: "system", content: LONG }, { role: "system", content: LONG }, ...agentTurn(3).slice(1)] },
      { tools: [longTool], response_format: { type: "json_object" }, messages: agentTurn(1) },
    ];
    for (const shape of shapes) expect(marks(body(shape)).length).toBeLessThanOrEqual(3);
  });
});

describe('cache breakpoints: minimum cacheable length per model (docs/providers.md "Anthropic prompt caching")', () => {
  test("per upstream id, dated and cloud-prefixed ids included", () => {
    expect(minimumCacheableTokens("claude-sonnet-4-5")).toBe(1_024);
    expect(minimumCacheableTokens("claude-opus-4-1")).toBe(1_024);
    expect(minimumCacheableTokens("claude-haiku-4-5")).toBe(4_096);
    expect(minimumCacheableTokens("claude-haiku-4-5-20251001")).toBe(4_096);
    expect(minimumCacheableTokens("anthropic.claude-haiku-4-5-20251001-v1:0")).toBe(4_096);
    expect(minimumCacheableTokens("claude-3-5-haiku-latest")).toBe(2_048);
    expect(minimumCacheableTokens("claude-opus-4-6")).toBe(4_096);
    expect(minimumCacheableTokens("claude-some-future-model")).toBe(1_024);
  });

  test("Haiku's threshold is higher: a 2,000-token system prompt is marked for Sonnet only", () => {
    const request = { messages: [{ role: "system" as const, content: LONG }, { role: "user" as const, content: "hi" }] };
    expect(marks(body(request, sonnet))).toEqual(["system.0"]);
    expect(marks(body(request, haiku))).toEqual([]);
    expect(marks(body(request, haiku35))).toEqual([]);
    const longer = { messages: [{ role: "system" as const, content: text(6_300) }, { role: "user" as const, content: "hi" }] };
    expect(marks(body(longer, haiku35))).toEqual(["system.0"]); // 2,100 > 2,048
    expect(marks(body(longer, haiku))).toEqual([]);
    const longest = { messages: [{ role: "system" as const, content: text(12_300) }, { role: "user" as const, content: "hi" }] };
    expect(marks(body(longest, haiku))).toEqual(["system.0"]); // 4,100 > 4,096
  });

  test("the estimate counts UTF-8 bytes: 1,100 CJK characters reach 1,024, 1,100 ASCII ones do not", () => {
    const cjk = "緩".repeat(1_100);
    expect(estimateTextTokens(cjk)).toBe(1_100);
    expect(estimateTextTokens("a".repeat(1_100))).toBeCloseTo(366.7, 1);
    expect(marks(body({ messages: [{ role: "system", content: cjk }, { role: "user", content: "hi" }] }))).toEqual(["system.0"]);
    expect(marks(body({ messages: [{ role: "system", content: "a".repeat(1_100) }, { role: "user", content: "hi" }] }))).toEqual([]);
  });
});

let upstream: ScriptedAnthropic;
let provider: Provider;
let sdk: Anthropic;

beforeAll(async () => {
  upstream = await startScriptedAnthropic();
  provider = anthropicProvider("anthropic", { baseUrl: upstream.url, apiKey: "sk-ant-test" });
  sdk = new Anthropic({ apiKey: "sk-ant-test", baseURL: upstream.url, maxRetries: 0 });
});
afterEach(() => upstream.reset());
afterAll(() => upstream.stop());

function call(request: Partial<ChatRequest>, model: CatalogModel = sonnet): ProviderCall {
  const controller = new AbortController();
  return { model, request: { model: model.id, messages: [], ...request }, controller, signal: controller.signal, attempt: 0 };
}

const sentBody = (i: number): MessagesBody => upstream.calls[i]?.body as MessagesBody;

describe('provider prompt cache end to end: anthropicProvider against the scripted Messages API (docs/cache.md "Provider prompt caches")', () => {
  test("an agent loop: turn 1 writes the cache, later turns read it; usage counts both in prompt_tokens", async () => {
    const tools = [weatherTool, longTool];
    upstream.script({ toolUses: [{ name: "search_docs", input: { city: "city0", days: 1 } }], usage: { inputTokens: 12, cacheCreationInputTokens: 2_700, outputTokens: 30 } });
    const first = await provider.complete(call({ tools, messages: agentTurn(0) }));
    expect(first.usage).toEqual({
      prompt_tokens: 2_712, completion_tokens: 30, total_tokens: 2_742, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 2_700 },
    });

    upstream.script({ toolUses: [{ name: "search_docs", input: { city: "city1", days: 1 } }], usage: { inputTokens: 900, cacheReadInputTokens: 2_700, cacheCreationInputTokens: 20, outputTokens: 30 } });
    const second = await provider.complete(call({ tools, messages: agentTurn(1) }));
    expect(second.usage).toEqual({
      prompt_tokens: 3_620, completion_tokens: 30, total_tokens: 3_650, prompt_tokens_details: { cached_tokens: 2_700, cache_write_tokens: 20 },
    });

    upstream.script({ text: "Done.", usage: { inputTokens: 900, cacheReadInputTokens: 2_720, cacheCreationInputTokens: 930, outputTokens: 5 } });
    const third = await provider.complete(call({ tools, messages: agentTurn(2) }));
    expect(third.usage.prompt_tokens).toBe(900 + 2_720 + 930);
    expect(third.usage.prompt_tokens_details).toEqual({ cached_tokens: 2_720, cache_write_tokens: 930 });

    // What Anthropic received (and accepted: the fake validates cache_control as the API does).
    const [b1, b2, b3] = [sentBody(0), sentBody(1), sentBody(2)];
    expect(marks(b1)).toEqual(["tools.1", "system.0"]); // one user message: no history yet
    expect(marks(b2)).toEqual(["tools.1", "system.0", "messages.1.content.0"]); // the tool_use before the tool result
    expect(marks(b3)).toEqual(["tools.1", "system.0", "messages.3.content.0"]);
    // Each turn's prefix is byte-identical to the previous turn's, marks aside: the cache can hit.
    expect(unmarked(b2.tools)).toBe(unmarked(b1.tools));
    expect(unmarked(b3.system)).toBe(unmarked(b1.system));
    expect(unmarked(b3.messages.slice(0, b2.messages.length - 1))).toBe(unmarked(b2.messages.slice(0, -1)));
    expect(unmarked(b2.messages.slice(0, b1.messages.length))).toBe(unmarked(b1.messages));
  });

  test("streamed: the same marks reach the upstream and cache usage arrives in the usage chunk", async () => {
    upstream.script({ text: "Streaming.", usage: { inputTokens: 15, cacheReadInputTokens: 2_000, cacheCreationInputTokens: 0 } });
    let usage: unknown = null;
    for await (const e of await provider.stream(call({ messages: [{ role: "system", content: LONG }, { role: "user", content: "hi" }] }))) {
      if (e.chunk.usage) usage = e.chunk.usage;
    }
    expect(usage).toMatchObject({ prompt_tokens: 2_015, prompt_tokens_details: { cached_tokens: 2_000, cache_write_tokens: 0 } });
    expect(marks(sentBody(0))).toEqual(["system.0"]);
    expect(sentBody(0).stream).toBe(true);
  });

  test("Haiku 4.5 under its 4,096 minimum: the upstream gets the body without marks", async () => {
    await provider.complete(call({ messages: [{ role: "system", content: LONG }, { role: "user", content: "hi" }] }, haiku));
    expect(JSON.stringify(upstream.calls[0]?.body)).not.toContain("cache_control");
  });
});

describe("the scripted upstream checks cache_control as the Messages API does (official SDK)", () => {
  const ephemeral = { type: "ephemeral" as const };
  const failure = async (params: Record<string, unknown>): Promise<string> => {
    const err = await sdk.messages.create(params as unknown as Anthropic.MessageCreateParamsNonStreaming).then(() => null, (e: unknown) => e);
    if (!(err instanceof BadRequestError)) throw new Error(`expected a 400, got ${String(err)}`);
    return (err.error as { error?: { message?: string } }).error?.message ?? "";
  };

  test("the SDK sends gw's body with its breakpoints and gets a message back", async () => {
    // Model "m": the SDK warns on stderr about deprecated model ids.
    const b = { ...body({ tools: [weatherTool, longTool], tool_choice: "none", messages: agentTurn(2) }), model: "m" };
    expect(marks(b)).toHaveLength(3);
    const msg = await sdk.messages.create(b as unknown as Anthropic.MessageCreateParamsNonStreaming);
    expect(msg.type).toBe("message");
    expect(upstream.calls[0]?.body).toEqual(b);
  });

  test("four marks are accepted (tool_result content included), a fifth is a 400", async () => {
    const four = {
      model: "m",
      max_tokens: 50,
      tools: [{ name: "t", input_schema: { type: "object" }, cache_control: ephemeral }],
      system: [{ type: "text", text: "sys", cache_control: ephemeral }],
      messages: [
        { role: "user", content: [{ type: "text", text: "a", cache_control: ephemeral }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {}, cache_control: ephemeral }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "r" }] }] },
      ],
    };
    expect((await sdk.messages.create(four as unknown as Anthropic.MessageCreateParamsNonStreaming)).type).toBe("message");
    const markedResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "r", cache_control: ephemeral }] }] };
    const five = { ...four, messages: [...four.messages.slice(0, 2), markedResult] };
    expect(await failure(five)).toBe("A maximum of 4 blocks with cache_control may be provided. Found 5.");
  });

  test("no mark on an empty text block or a thinking block, and only type ephemeral (ttl 5m or 1h)", async () => {
    const user = (block: Record<string, unknown>) => ({ model: "m", max_tokens: 10, messages: [{ role: "user", content: [block] }] });
    expect(await failure(user({ type: "text", text: "", cache_control: ephemeral }))).toBe("cache_control cannot be set for empty text blocks");
    expect(await failure(user({ type: "text", text: "x", cache_control: { type: "persistent" } }))).toContain("Input should be 'ephemeral'");
    expect(await failure(user({ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "1d" } }))).toContain("ttl");
    const thinking = {
      model: "m", max_tokens: 10,
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "sig", cache_control: ephemeral }, { type: "text", text: "a" }] },
        { role: "user", content: "more" },
      ],
    };
    expect(await failure(thinking)).toContain("Extra inputs are not permitted");
    const ok = await sdk.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "1h" } }] }] });
    expect(ok.type).toBe("message");
  });
});
