// USD model cost from catalog prices (per million tokens), before markup. Cached input tokens are
// part of prompt_tokens (OpenAI's convention) and are priced at the cached rate, never twice.
import type { CatalogModel } from "./catalog-types.ts";

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

/** Rounded to 1e-10 USD so sums of many requests do not drift in the last float digits. */
const roundUsd = (usd: number): number => Math.round(usd * 1e10) / 1e10;

export function costOf(model: CatalogModel, t: TokenCounts): number {
  const cached = Math.min(t.cachedTokens, t.promptTokens);
  const cachedPrice = model.cached_input_price ?? model.input_price;
  const usd = (t.promptTokens - cached) * model.input_price + cached * cachedPrice + t.completionTokens * model.output_price;
  return roundUsd(usd / 1e6);
}

/** The most a request can cost on this model: every input token uncached, output at its bound. */
export function maxCostOf(model: CatalogModel, inputTokens: number, outputBound: number | undefined): number {
  const output = Math.min(outputBound ?? model.max_output_tokens, model.max_output_tokens);
  return costOf(model, { promptTokens: inputTokens, completionTokens: output, cachedTokens: 0 });
}
