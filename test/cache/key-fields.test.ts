// cacheKeys (src/cache/key.ts) over the request fields outside the named components (issue 15
// item 6): each joins both the exact key and the semantic partition, in canonical order; null is
// absent; fields that cannot change the answer leave the key alone.
import { describe, expect, test } from "bun:test";
import { cacheKeys, type KeyContext } from "../../src/cache/key.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";

const ctx: KeyContext = { projectId: "p1", mode: "live", scope: null, policy: {} };
const req = (extra: Record<string, unknown> = {}): ChatRequest => ({
  model: "openai/gpt-4o-mini",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Name a river." }],
  ...extra,
});
const plain = cacheKeys(req(), ctx);

describe("fields outside the named components", () => {
  const changing: Record<string, unknown> = {
    seed: 1, logit_bias: { "50256": -100 }, presence_penalty: 0.5, frequency_penalty: 0.5, logprobs: true, top_logprobs: 2,
    reasoning_effort: "low", prediction: { type: "content", content: "x" }, modalities: ["text"], service_tier: "flex",
    parallel_tool_calls: false, tool_choice: "none", optimization: { mode: "balanced" }, unknown_field: [1],
  };
  for (const [field, value] of Object.entries(changing)) {
    test(`${field} changes the exact key and the partition`, () => {
      const k = cacheKeys(req({ [field]: value }), ctx);
      expect(k.exact).not.toBe(plain.exact);
      expect(k.partition).not.toBe(plain.partition);
    });
  }

  test("two such fields in either order, and nested keys in either order, give one key", () => {
    const a = cacheKeys(req({ seed: 3, logit_bias: { "1": 5, "2": -5 } }), ctx);
    const b = cacheKeys(req({ logit_bias: { "2": -5, "1": 5 }, seed: 3 }), ctx);
    expect(a.exact).toBe(b.exact);
    expect(cacheKeys(req({ seed: 4, logit_bias: { "1": 5, "2": -5 } }), ctx).exact).not.toBe(a.exact);
  });

  test("null counts as absent, and fields that cannot change the answer leave the key alone", () => {
    const k = cacheKeys(req({
      seed: null, logit_bias: null, stream: true, stream_options: { include_usage: true }, metadata: { step: "a" }, tags: ["t"],
      cache: { tags: ["x"] }, n: 1, store: true, prompt_cache_key: "k", safety_identifier: "s", gw: { step: "s1" },
    }), ctx);
    expect(k).toEqual(plain);
  });
});

describe("message fields beyond role, name and content", () => {
  const withMessage = (m: Record<string, unknown>): ChatRequest => ({
    model: "openai/gpt-4o-mini",
    messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello", ...m } as ChatRequest["messages"][number], { role: "user", content: "Name a river." }],
  });
  const base = cacheKeys(withMessage({}), ctx);

  test("tool_calls, refusal and unknown message fields change both keys; null ones do not", () => {
    for (const m of [
      { tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { refusal: "no" },
      { cache_control: { type: "ephemeral" } },
    ]) {
      const k = cacheKeys(withMessage(m), ctx);
      expect(k.exact).not.toBe(base.exact);
      expect(k.partition).not.toBe(base.partition);
    }
    expect(cacheKeys(withMessage({ refusal: null }), ctx)).toEqual(base);
  });
});
