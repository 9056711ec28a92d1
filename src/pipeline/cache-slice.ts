// What cache-lookup, its semantic half and cache-store write into the cache slice (state.ts): a
// hit served from a stored answer, and an outage, which is a miss (docs/cache.md).
import type { CachedAnswer } from "../cache/answer-store-types.ts";
import { servedAnswer } from "../cache/cached-answer.ts";
import { isProfile } from "../routing/profiles.ts";
import type { Deps } from "./deps.ts";
import { need, type CacheState, type RequestState } from "./state.ts";

/** Serves a stored answer: the hit's completion, usage and model. False when the entry's model
 * left the catalog (a miss). */
export function serveCached(deps: Deps, state: RequestState, entry: CachedAnswer, kind: "exact" | "semantic", similarity?: number): boolean {
  const served = servedAnswer(deps.catalog.get(entry.model), entry, state.createdAt);
  if (!served) return false;
  const request = need(state, "request");
  state.completion = served.completion;
  state.usage = served.usage;
  state.selected = served.model;
  state.provider = "cache";
  state.profile = isProfile(request.model) ? request.model : null;
  state.reason = `answered from the ${kind} cache`;
  const hit: Partial<CacheState> = { result: "hit", kind, missReason: null };
  if (similarity !== undefined) hit.similarity = similarity;
  Object.assign(need(state, "cache"), hit);
  return true;
}

/** A cache outage is a miss: the request goes on to the models; the answer is not stored. */
export function cacheUnavailable(deps: Deps, state: RequestState, err: unknown): void {
  markCacheUnavailable(state);
  deps.logger.warn({ err, request_id: state.requestId }, "response cache unavailable; treated as a miss");
}

/** The request is a miss because the cache could not be read, and nothing will be stored; the
 * caller says so (the multi-instance mode logs a Redis outage once, not per request). */
export function markCacheUnavailable(state: RequestState): void {
  const cache = need(state, "cache");
  cache.result = "error";
  cache.missReason = "cache_unavailable";
  cache.write = false;
}
