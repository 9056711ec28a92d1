// USD model cost from catalog prices (per million tokens), before markup. Cache reads and cache
// writes are part of prompt_tokens (the canonical usage, providers/types.ts): each input token is
// priced once, at the uncached, cached-read or cache-write rate.
import type { CatalogModel } from "./catalog-types.ts";

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Input tokens written into the provider's prompt cache (Anthropic). */
  cacheWriteTokens?: number;
}

/** Rounded to 1e-10 USD so sums of many requests do not drift in the last float digits. */
const roundUsd = (usd: number): number => Math.round(usd * 1e10) / 1e10;

export function costOf(model: CatalogModel, t: TokenCounts): number {
  const cached = Math.min(t.cachedTokens, t.promptTokens);
  const written = Math.min(t.cacheWriteTokens ?? 0, t.promptTokens - cached);
  const cachedPrice = model.cached_input_price ?? model.input_price;
  const writePrice = model.cache_write_price ?? model.input_price;
  const uncached = t.promptTokens - cached - written;
  const usd = uncached * model.input_price + cached * cachedPrice + written * writePrice + t.completionTokens * model.output_price;
  return roundUsd(usd / 1e6);
}

/** The most a request can cost on this model: every input token uncached, output at its bound. */
export function maxCostOf(model: CatalogModel, inputTokens: number, outputBound: number | undefined): number {
  const output = Math.min(outputBound ?? model.max_output_tokens, model.max_output_tokens);
  return costOf(model, { promptTokens: inputTokens, completionTokens: output, cachedTokens: 0 });
}
