// Test-mode embeddings (docs/api.md "Embeddings"): the sandbox's vectors are pinned, so a change to the
// generator (which would break callers' stored test fixtures) fails here first; base64 encoding.
import { describe, expect, test } from "bun:test";
import { countTextTokens } from "../../src/analysis/tokens.ts";
import { base64Float32 } from "../../src/pipeline/embed/embeddings-body.ts";
import { testVector } from "../../src/providers/sandbox/embeddings.ts";
import { sandboxProvider } from "../../src/providers/sandbox/index.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { rejection } from "../helpers/upstream-failures.ts";

const model = buildCatalog().get("openai/text-embedding-3-small")!;
const embedCall = (input: string[], requestedModel?: string, attempt = 0) => {
  const controller = new AbortController();
  return { model, input, controller, signal: controller.signal, requestedModel, attempt };
};

describe("sandbox test vectors", () => {
  test("pinned: the same text gives the same vector in every release", () => {
    expect(testVector("hello").slice(0, 3)).toEqual([-0.1655475783231328, -0.1476600389447453, -0.07716621779211495]);
  });

  test("16 unit-length dimensions; texts one letter apart point elsewhere", () => {
    const a = testVector("hello");
    const b = testVector("hellp");
    expect(a).toHaveLength(16);
    expect(Math.hypot(...a)).toBeCloseTo(1, 14);
    expect(Math.abs(a.reduce((n, x, i) => n + x * b[i]!, 0))).toBeLessThan(0.9);
  });

  test("embed(): vectors in input order, usage counted with gpt-tokenizer", async () => {
    const out = await sandboxProvider().embed!(embedCall(["a b c", "d"]));
    expect(out.data).toEqual([{ index: 0, embedding: testVector("a b c") }, { index: 1, embedding: testVector("d") }]);
    const tokens = countTextTokens("a b c") + countTextTokens("d");
    expect(out.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
  });

  test("embed(): gw-test scenarios fail as upstream failures; fallback fails the first attempt only", async () => {
    expect((await rejection(sandboxProvider().embed!(embedCall(["x"], "gw-test:timeout")))).failureClass).toBe("timeout");
    expect((await rejection(sandboxProvider().embed!(embedCall(["x"], "gw-test:fallback", 0)))).failureClass).toBe("transient");
    expect((await sandboxProvider().embed!(embedCall(["x"], "gw-test:fallback", 1))).data).toHaveLength(1);
  });
});

describe("base64 encoding (OpenAI's encoding_format base64)", () => {
  test("little-endian float32 bytes", () => {
    expect(base64Float32([1, -2])).toBe(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString("base64"));
  });
});
