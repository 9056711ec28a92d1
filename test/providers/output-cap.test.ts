// The output bound sent upstream is capped at the attempt's model maximum (docs/providers.md
// "Output tokens"): in every adapter, for max_tokens and max_completion_tokens; smaller bounds and
// absent ones pass as they came.
import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { toMessagesBody } from "../../src/providers/anthropic/request.ts";
import { toGenerateContent } from "../../src/providers/google/request.ts";
import { toUpstreamBody } from "../../src/providers/openai-compatible/request.ts";
import type { ProviderCall } from "../../src/providers/types.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";

const catalog = buildCatalog();
const model = (id: string) => {
  const m = catalog.get(id);
  if (!m) throw new Error(`no ${id} in the catalog`);
  return m;
};
const ask = (extra: Partial<ChatRequest>): ChatRequest => ({ model: "x", messages: [{ role: "user", content: "hi" }], ...extra });
const options = { baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" };
const call = (m: CatalogModel, request: ChatRequest): ProviderCall => {
  const controller = new AbortController();
  return { model: m, request, controller, signal: controller.signal, attempt: 0 };
};

describe("OpenAI-compatible", () => {
  const mini = model("openai/gpt-4o-mini");
  test("a bound over the model's maximum is cut to it", () => {
    expect(mini.max_output_tokens).toBe(16_384);
    expect(toUpstreamBody(call(mini, ask({ max_tokens: 32_000 })), options).max_tokens).toBe(16_384);
    expect(toUpstreamBody(call(mini, ask({ max_completion_tokens: 50_000 })), options).max_completion_tokens).toBe(16_384);
  });
  test("a smaller bound, or none, is left alone", () => {
    expect(toUpstreamBody(call(mini, ask({ max_tokens: 100 })), options).max_tokens).toBe(100);
    expect("max_tokens" in toUpstreamBody(call(mini, ask({})), options)).toBe(false);
  });
});

test("Anthropic: the caller's bound is capped, the default stays 4,096", () => {
  const haiku = model("anthropic/claude-haiku-4-5");
  expect(toMessagesBody({ model: haiku, request: ask({ max_tokens: 200_000 }) }).max_tokens).toBe(haiku.max_output_tokens);
  expect(toMessagesBody({ model: haiku, request: ask({ max_tokens: 32_000 }) }).max_tokens).toBe(32_000);
  expect(toMessagesBody({ model: haiku, request: ask({}) }).max_tokens).toBe(4_096);
});

test("Gemini: maxOutputTokens capped when the model is known", () => {
  const flash = model("google/gemini-2.5-flash");
  expect(toGenerateContent(ask({ max_tokens: 1_000_000 }), flash).generationConfig?.maxOutputTokens).toBe(flash.max_output_tokens);
  expect(toGenerateContent(ask({ max_tokens: 1_000 }), flash).generationConfig?.maxOutputTokens).toBe(1_000);
});
