// Data checks for the shipped model catalog (src/routing/models.json).
// Docs: docs/models.md "Models"; docs/api.md "Models".
import { describe, expect, test } from "bun:test";
import catalog from "../../src/routing/models.json";
import { TASK_KINDS, type CatalogFile, type CatalogModel } from "../../src/routing/catalog-types.ts";

// Type-check the JSON against the declared shape: a drift in models.json fails `tsc`.
const file: CatalogFile = catalog;
const models: CatalogModel[] = file.models;

const REQUIRED_PROVIDERS = [
  "openai", "anthropic", "google", "mistral", "groq", "deepseek", "xai", "together", "openrouter",
];

const isPositiveInt = (n: unknown): boolean => typeof n === "number" && Number.isInteger(n) && n > 0;
const isPrice = (n: unknown): boolean => typeof n === "number" && Number.isFinite(n) && n >= 0;

describe('model catalog shape (docs/models.md "Models")', () => {
  test("has at least 30 models", () => {
    expect(models.length).toBeGreaterThanOrEqual(30);
  });

  test("covers at least 8 distinct providers, including the required ones", () => {
    const providers = new Set(models.map((m) => m.provider));
    expect(providers.size).toBeGreaterThanOrEqual(8);
    for (const p of REQUIRED_PROVIDERS) expect(providers.has(p)).toBe(true);
  });

  test("provider ids are lower case", () => {
    for (const m of models) expect(m.provider).toBe(m.provider.toLowerCase());
  });

  test("ids are unique and equal to `${provider}/${upstream_id}`", () => {
    const seen = new Set<string>();
    for (const m of models) {
      expect(m.id).toBe(`${m.provider}/${m.upstream_id}`);
      expect(seen.has(m.id)).toBe(false);
      seen.add(m.id);
    }
  });

  test("name and owned_by are non-empty; created is a plausible release date in epoch seconds", () => {
    const min = Date.UTC(2023, 0, 1) / 1000;
    const max = Date.UTC(2030, 0, 1) / 1000;
    for (const m of models) {
      expect(m.name.length).toBeGreaterThan(0);
      expect(m.owned_by.length).toBeGreaterThan(0);
      expect(Number.isInteger(m.created)).toBe(true);
      expect(m.created).toBeGreaterThanOrEqual(min);
      expect(m.created).toBeLessThan(max);
    }
  });

  test("prices_as_of is a valid YYYY-MM-DD date", () => {
    expect(file.prices_as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const t = Date.parse(`${file.prices_as_of}T00:00:00Z`);
    expect(Number.isNaN(t)).toBe(false);
    // Round-trips, so e.g. 2025-02-30 is rejected.
    expect(new Date(t).toISOString().slice(0, 10)).toBe(file.prices_as_of);
  });
});

describe('model catalog prices and limits (docs/models.md "Models")', () => {
  test("every price is finite and >= 0", () => {
    for (const m of models) {
      expect(isPrice(m.input_price)).toBe(true);
      expect(isPrice(m.output_price)).toBe(true);
      if (m.cached_input_price !== null) expect(isPrice(m.cached_input_price)).toBe(true);
    }
  });

  test("chat models have input_price > 0 and output_price > 0", () => {
    for (const m of models.filter((x) => !x.capabilities.embeddings)) {
      expect(m.input_price).toBeGreaterThan(0);
      expect(m.output_price).toBeGreaterThan(0);
    }
  });

  test("cache_write_price, where given, is a price at or above input_price (Anthropic: 1.25x)", () => {
    const withWrites = models.filter((m) => m.cache_write_price !== undefined);
    expect(withWrites.map((m) => m.provider)).toEqual(withWrites.map(() => "anthropic"));
    for (const m of withWrites) expect(m.cache_write_price).toBe(Math.round(m.input_price * 1.25 * 1e4) / 1e4);
  });

  test("cached_input_price is null or below input_price", () => {
    for (const m of models) {
      if (m.cached_input_price === null) continue;
      expect(m.cached_input_price).toBeLessThan(m.input_price);
    }
  });

  test("context_window and max_output_tokens are positive integers", () => {
    for (const m of models) {
      expect(isPositiveInt(m.context_window)).toBe(true);
      expect(isPositiveInt(m.max_output_tokens)).toBe(true);
    }
  });
});

describe('model catalog capabilities and quality (docs/models.md "Models")', () => {
  test("every TASK_KINDS key is present in quality with a value in [0,1], and no other keys", () => {
    for (const m of models) {
      const q = m.quality as Record<string, unknown>;
      for (const k of TASK_KINDS) {
        const v = q[k];
        expect(typeof v).toBe("number");
        expect(v as number).toBeGreaterThanOrEqual(0);
        expect(v as number).toBeLessThanOrEqual(1);
      }
      expect(Object.keys(q).sort()).toEqual([...TASK_KINDS].sort());
    }
  });

  test("capabilities are all booleans", () => {
    for (const m of models) {
      for (const k of ["tools", "vision", "json", "reasoning", "embeddings"] as const) {
        expect(typeof m.capabilities[k]).toBe("boolean");
      }
    }
  });

  test("embedding models: dimensions > 0, output_price 0, no chat capabilities, quality all 0", () => {
    const emb = models.filter((m) => m.capabilities.embeddings);
    expect(emb.length).toBeGreaterThan(0);
    for (const m of emb) {
      expect(isPositiveInt(m.dimensions)).toBe(true);
      expect(m.output_price).toBe(0);
      expect(m.capabilities.tools).toBe(false);
      expect(m.capabilities.vision).toBe(false);
      expect(m.capabilities.json).toBe(false);
      for (const k of TASK_KINDS) expect(m.quality[k]).toBe(0);
    }
  });

  test("only embedding models carry dimensions", () => {
    for (const m of models.filter((x) => !x.capabilities.embeddings)) {
      expect(m.dimensions).toBeUndefined();
    }
  });

  test("models without vision score 0 on the vision task", () => {
    for (const m of models.filter((x) => !x.capabilities.vision)) {
      expect(m.quality.vision).toBe(0);
    }
  });

  test("every provider has at least one non-embedding model", () => {
    const providers = new Set(models.map((m) => m.provider));
    for (const p of providers) {
      expect(models.some((m) => m.provider === p && !m.capabilities.embeddings)).toBe(true);
    }
  });
});
