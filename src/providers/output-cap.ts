// A request's output bound, capped at the model's own (docs/providers.md "Output tokens"): a router
// picks the model, and a fallback may land on one with a smaller maximum than the caller assumed.
import type { CatalogModel } from "../routing/catalog-types.ts";

/** `max_tokens` or `max_completion_tokens` as sent upstream: at most the model's maximum, when
 * both are known; anything else (absent, not a number) passes as it came. */
export function capOutputTokens<T>(value: T, model: CatalogModel): T | number {
  const max = model.max_output_tokens;
  return typeof value === "number" && max > 0 && value > max ? max : value;
}
