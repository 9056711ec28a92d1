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

/** What a request asks of its output (issue 15 item 3): `n` choices of at most `max_completion_tokens`
 * (or `max_tokens`) each; no cap means the model's own maximum. */
export interface OutputAsk {
  choices: number;
  perChoice: number | undefined;
}

export function outputAskOf(req: { n?: unknown; max_tokens?: unknown; max_completion_tokens?: unknown }): OutputAsk {
  const n = typeof req.n === "number" && Number.isFinite(req.n) && req.n > 1 ? Math.floor(req.n) : 1;
  const asked = req.max_completion_tokens ?? req.max_tokens;
  return { choices: n, perChoice: typeof asked === "number" && asked > 0 ? asked : undefined };
}

/** The most output tokens a call may produce: n x min(asked or the model's maximum, the model's
 * maximum). The context window never lowers it: the upper bound stays an upper bound whatever
 * the input's exact size. A model without a declared maximum is bounded by its window. */
export function worstOutputTokens(model: CatalogModel, ask: OutputAsk): number {
  const modelMax = model.max_output_tokens > 0 ? model.max_output_tokens : model.context_window;
  return ask.choices * Math.min(ask.perChoice ?? modelMax, modelMax);
}

/** The most a request can cost on this model (max_cost filter, reservations): every input token
 * uncached, every choice at its output bound. */
export function worstCostOf(model: CatalogModel, inputTokens: number, ask: OutputAsk): number {
  return costOf(model, { promptTokens: inputTokens, completionTokens: worstOutputTokens(model, ask), cachedTokens: 0 });
}

/** The cost estimate of one model for one request, made once for both its readers: the max_cost
 * check holds `worst` to the cap, and trace.expected shows `expected` (the typical answer on the
 * same input count, never above `worst`), so a served request's trace never shows more than its cap. */
export interface CostEstimate {
  /** The input count both figures use: the strict byte bound, or the exact count when the bound's
   * worst case fails the cap (docs/routing.md "Eligibility"). */
  inputTokens: number;
  worst: number;
  expected: number;
}

export function estimateCost(model: CatalogModel, inputTokens: (exact: boolean) => number, ask: OutputAsk, outputBound: number, cap: number | undefined): CostEstimate {
  let tokens = inputTokens(false);
  let worst = worstCostOf(model, tokens, ask);
  if (cap !== undefined && worst > cap) {
    tokens = inputTokens(true);
    worst = worstCostOf(model, tokens, ask);
  }
  return { inputTokens: tokens, worst, expected: Math.min(maxCostOf(model, tokens, outputBound), worst) };
}
