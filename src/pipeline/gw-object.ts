// The `gw` object on completions and stream summaries, and the gw response headers with the
// x-ratelimit-* of a rate-limited project or key (docs/api.md "The gw object", "Response headers").
import type { RequestState } from "./state.ts";

export type GwObject = ReturnType<typeof gwObject>;

export function gwObject(state: RequestState) {
  const hit = state.cache?.result === "hit" ? state.cache : null;
  return {
    request_id: state.requestId,
    selected_model: state.selected?.id ?? null,
    provider: state.provider,
    cost: state.cost,
    saved: state.saved,
    cache: hit?.kind ?? null,
    // Undefined (not a hit of the semantic cache) is left out by JSON, the object's only reader;
    // a literal of fixed shape is cheaper to make than a spread.
    similarity: hit?.similarity,
    fallbacks: state.fallbacks,
    test: state.auth.test,
  };
}

export function gwHeaders(state: RequestState): Record<string, string> {
  const headers: Record<string, string> = { "x-gw-cache": state.cache?.result === "hit" ? state.cache.kind! : "miss" };
  if (state.selected) headers["x-gw-model"] = state.selected.id;
  if (state.provider) headers["x-gw-provider"] = state.provider;
  const limits = state.rateLimitHeaders;
  if (limits) for (const name in limits) headers[name] = limits[name]!;
  return headers;
}
