// Stage cache-lookup: classifies the request, computes its keys, answers from the exact cache and
// then the semantic one; a hit skips route and call, a failing store is a miss (docs/cache.md
// "Classification", "Keys", "Hits"). Writes state.cache (trace.cache).
import { decideCache } from "../../cache/policy.ts";
import { cacheKeyTexts, hashKeyText } from "../../cache/key.ts";
import { isTestModel } from "../../providers/sandbox/scenarios.ts";
import type { Deps } from "../deps.ts";
import { cacheUnavailable, markCacheUnavailable, serveCached } from "../cache-slice.ts";
import { need, type CacheState, type RequestState } from "../state.ts";
import type { CachedAnswer } from "../../cache/answer-store-types.ts";
import type { RedisAnswerStore } from "../../store/redis/answers.ts";
import { RedisFailure } from "../../store/redis/redis-call.ts";
import { semanticLookup } from "./cache-semantic.ts";

export function cacheLookup(deps: Deps, state: RequestState): void | Promise<void> {
  const req = need(state, "request");
  if (isTestModel(req.model)) {
    // gw-test:<name> exists to run its scenario (docs/api.md "Test mode"); a cached answer would hide it.
    state.cache = { result: "skip", kind: null, missReason: "test_scenario", write: false, semantic: { eligible: false, reason: "test_scenario" } };
    return;
  }
  const headerOff = state.http.headers.get("x-gw-cache")?.toLowerCase() === "off";
  // The cache's classification and keys read gw's options (cache, routing, versions) beside the request.
  const options = need(state, "options");
  const decision = decideCache(req, options, need(state, "analysis"), state.auth.rules, headerOff, state.inputTokens);
  const cache: CacheState = {
    result: decision.skip ? "skip" : decision.refresh ? "refresh" : "miss",
    kind: null,
    missReason: decision.skip ?? (decision.refresh ? "refresh" : null),
    write: decision.write,
    semantic: decision.semantic,
  };
  state.cache = cache;
  if (decision.skip) return;
  try {
    const texts = cacheKeyTexts(req, { projectId: state.auth.project.id, mode: state.auth.key.mode, scope: state.http.headers.get("x-gw-cache-scope"), policy: state.auth.rules.cache.keyPolicy, options });
    cache.exactKey = hashKeyText(texts.exact);
    if (deps.shared !== null) {
      cache.partition = hashKeyText(texts.partition);
      if (decision.read) return sharedLookup(deps, state, cache, deps.shared.fast.answers, decision.semantic.eligible);
      return;
    }
    if (decision.read) {
      const entry = deps.answers.get(state.auth.project.id, cache.exactKey, deps.clock.now());
      // An exact hit needs no partition: only the semantic lookup and cache-store read it.
      if (entry && serveCached(deps, state, entry, "exact")) return;
      cache.missReason = entry ? "model_gone" : "not_found";
    }
    cache.partition = hashKeyText(texts.partition);
    if (!decision.read) return;
    if (decision.semantic.eligible && deps.semantic) return semanticLookup(deps, state);
  } catch (err) {
    cacheUnavailable(deps, state, err);
  }
}

/** Multi-instance: the exact answer from Redis, shared by every instance, then the semantic lookup
 * (its entries read from Redis too). A failed read is a miss, never an error answer. */
function sharedLookup(deps: Deps, state: RequestState, cache: CacheState, answers: RedisAnswerStore, semantic: boolean): void | Promise<void> {
  // Redis down: a miss without asking it, but for one request per retry interval that looks for it.
  if (answers.outage.skip()) return markCacheUnavailable(state);
  return answers.get(state.auth.project.id, cache.exactKey!, deps.clock.now()).then(
    (entry) => {
      if (entry && serveCached(deps, state, entry as CachedAnswer, "exact")) return;
      cache.missReason = entry ? "model_gone" : "not_found";
      if (semantic && deps.semantic) return semanticLookup(deps, state);
    },
    (err: unknown) => {
      if (!(err instanceof RedisFailure)) return cacheUnavailable(deps, state, err);
      // Redis down: every request is a miss until it answers; said once, not per request.
      markCacheUnavailable(state);
      if (answers.outage.fail()) deps.logger.error({ err }, "Redis unavailable: the response cache is skipped (misses, nothing stored) until it answers");
    },
  );
}
