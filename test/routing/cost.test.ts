// Cost is exact to the token for every usage format (issue 4 item 4; docs/providers.md "Usage and cost, exactly"): cached
// reads and cache writes are part of prompt_tokens and each input token is priced once.
import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { costOf, maxCostOf } from "../../src/routing/cost.ts";

const catalog = buildCatalog();
const model = (id: string) => {
  const m = catalog.get(id);
  if (!m) throw new Error(`missing ${id}`);
  return m;
};

describe("costOf (catalog prices per million tokens)", () => {
  test("OpenAI: 1,000 prompt tokens of which 400 cached, 200 completion", () => {
    // 600 x 0.15 + 400 x 0.075 + 200 x 0.6 = 240 micro-dollars
    expect(costOf(model("openai/gpt-4o-mini"), { promptTokens: 1000, cachedTokens: 400, completionTokens: 200 })).toBe(0.00024);
  });

  test("Anthropic: 100 uncached + 2,000 cache reads + 500 cache writes, 300 output", () => {
    // 100 x 3 + 2000 x 0.3 + 500 x 3.75 + 300 x 15 = 7,275 micro-dollars
    const cost = costOf(model("anthropic/claude-sonnet-4-5"), { promptTokens: 2600, cachedTokens: 2000, cacheWriteTokens: 500, completionTokens: 300 });
    expect(cost).toBe(0.007275);
  });

  test("Gemini: cached tokens inside promptTokenCount, thoughts billed as output", () => {
    // 1,000 prompt of which 800 cached; 50 answer + 150 thought tokens = 200 output:
    // 200 x 0.3 + 800 x 0.03 + 200 x 2.5 = 584 micro-dollars
    expect(costOf(model("google/gemini-2.5-flash"), { promptTokens: 1000, cachedTokens: 800, completionTokens: 200 })).toBe(0.000584);
  });

  test("no cache price: cached and written tokens cost the input price, never less than zero uncached", () => {
    const plain = { ...model("openai/gpt-4o-mini"), cached_input_price: null };
    expect(costOf(plain, { promptTokens: 100, cachedTokens: 100, completionTokens: 0 })).toBe(costOf(plain, { promptTokens: 100, cachedTokens: 0, completionTokens: 0 }));
    // Inconsistent usage (more cached + written than prompt) is clamped, not charged twice.
    const sonnet = model("anthropic/claude-sonnet-4-5");
    expect(costOf(sonnet, { promptTokens: 100, cachedTokens: 80, cacheWriteTokens: 80, completionTokens: 0 })).toBe((80 * 0.3 + 20 * 3.75) / 1e6);
  });

  test("maxCostOf: every input token uncached, output at its bound", () => {
    expect(maxCostOf(model("openai/gpt-4o-mini"), 1000, 100)).toBe((1000 * 0.15 + 100 * 0.6) / 1e6);
  });
});
