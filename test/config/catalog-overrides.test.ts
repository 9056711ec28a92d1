// GW_CONFIG model entries (docs/config.md "Models"): a catalog id is overridden field by field
// (capabilities and quality merged key by key); a new id needs only id and provider.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalogFromConfig } from "../../src/deps.ts";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { NEW_MODEL_DEFAULTS } from "../../src/routing/catalog-merge.ts";
import { TASK_KINDS } from "../../src/routing/catalog-types.ts";
import { post, startTestGw } from "../helpers/test-gw.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-overrides-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (content: unknown): string => {
  const path = join(dir, `gw-${n++}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

const builtIn = buildCatalog().get("openai/gpt-4o-mini")!;

describe("overriding a catalog model", () => {
  test("only the fields given change; capabilities and quality merge key by key", () => {
    const catalog = catalogFromConfig(file({ models: [{
      id: "openai/gpt-4o-mini", input_price: 0.12, capabilities: { vision: false }, quality: { coding: 0.7 }, regions: ["us"],
    }] }));
    const m = catalog.get("openai/gpt-4o-mini")!;
    expect(m).toEqual({
      ...builtIn, input_price: 0.12, regions: ["us"],
      capabilities: { ...builtIn.capabilities, vision: false },
      quality: { ...builtIn.quality, coding: 0.7 },
    });
    expect(catalog.models.length).toBe(buildCatalog().models.length);
    // The bare id still resolves to the overridden model.
    expect(catalog.resolve("gpt-4o-mini")).toBe(m);
  });

  test("the partial entry that used to crash start-up (m.capabilities.tools undefined) serves requests", async () => {
    const gw = await startTestGw({ GW_CONFIG: file({ models: [{ id: "openai/gpt-4o-mini", input_price: 0.12 }] }) });
    try {
      const res = await post(`${gw.url}/chat/completions`, gw.testKey, {
        model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      });
      expect(res.status).toBe(200);
      const models = (await (await fetch(`${gw.url}/models`, { headers: { authorization: `Bearer ${gw.testKey}` } })).json()) as { data: Array<{ id: string }> };
      expect(models.data.map((m) => m.id)).toContain("openai/gpt-4o-mini");
    } finally {
      await gw.stop();
    }
  });

  test("a full entry (the old form) still replaces every field", () => {
    const full = { ...builtIn, name: "Renamed", output_price: 0.5 };
    expect(catalogFromConfig(file({ models: [full] })).get(full.id)).toEqual(full);
  });
});

describe("adding a model", () => {
  test("id and provider are enough; the rest takes the documented defaults", () => {
    const m: object = catalogFromConfig(file({ models: [{ id: "ollama/llama3.2", provider: "ollama" }] })).get("ollama/llama3.2")!;
    expect(m).toEqual({
      id: "ollama/llama3.2", provider: "ollama", upstream_id: "llama3.2", name: "llama3.2", owned_by: "ollama", created: 0,
      input_price: 0, output_price: 0, cached_input_price: null,
      context_window: NEW_MODEL_DEFAULTS.context_window, max_output_tokens: NEW_MODEL_DEFAULTS.max_output_tokens,
      capabilities: { tools: true, vision: false, json: true, reasoning: false, embeddings: false },
      quality: Object.fromEntries(TASK_KINDS.map((k) => [k, k === "vision" ? 0 : 0.5])),
    });
  });

  test("unscored tasks follow the given general score; a small context caps the default output", () => {
    const m = catalogFromConfig(file({ models: [{
      id: "vllm/qwen", provider: "vllm", upstream_id: "Qwen/Qwen3-8B", context_window: 8192,
      capabilities: { vision: true }, quality: { general: 0.7, coding: 0.8 },
    }] })).get("vllm/qwen")!;
    expect(m.upstream_id).toBe("Qwen/Qwen3-8B");
    expect(m.max_output_tokens).toBe(8192);
    const quality: Record<string, number> = m.quality;
    expect(quality).toEqual({ ...Object.fromEntries(TASK_KINDS.map((k) => [k, 0.7])), coding: 0.8 });
  });

  test("a new model without provider, or with more output than context, is refused naming the entry", () => {
    const noProvider = file({ models: [{ id: "openai/gpt-4o" }, { id: "acme/model-x", input_price: 1 }] });
    expect(() => catalogFromConfig(noProvider)).toThrow(
      `GW_CONFIG ${noProvider}: models[1].provider: required for a model that is not in the catalog ('acme/model-x')`,
    );
    const acme = file({ models: [{ id: "acme/model-x", provider: "acme" }] });
    expect(() => catalogFromConfig(acme)).toThrow(
      `GW_CONFIG ${acme}: models[0].provider: expected one of openai, groq, deepseek, xai, mistral, together, openrouter, anthropic, google, azure-openai, ollama, vllm, got "acme"`,
    );
    const tooLong = file({ models: [{ id: "openai/gpt-4o-mini", max_output_tokens: 200_000 }] });
    expect(() => catalogFromConfig(tooLong)).toThrow(
      `GW_CONFIG ${tooLong}: models[0].max_output_tokens: expected at most context_window (128000), got 200000`,
    );
  });
});
