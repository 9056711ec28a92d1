// Stage cache-lookup: classifies the request, computes its keys, answers from the exact cache and
// then the semantic one; a hit skips route and call, a failing store is a miss (docs/cache.md
// "Classification", "Keys", "Hits"). Writes state.cache (trace.cache).
import { decideCache, type CacheDecision } from "../../cache/policy.ts";
import { cacheKeyTexts, hashKeyText } from "../../cache/key.ts";
import { isTestModel } from "../../providers/sandbox/scenarios.ts";
import type { Deps } from "../deps.ts";
import { cacheUnavailable, markCacheUnavailable, serveCached } from "../cache-slice.ts";
import { need, type CacheState, type RequestState } from "../state.ts";
import type { CachedAnswer } from "../../cache/answer-store-types.ts";
import type { CacheRecord } from "../../store/repos/cache-entries.ts";
import type { RedisAnswerStore } from "../../store/redis/answers.ts";
import { RedisFailure } from "../../store/redis/redis-call.ts";
import { semanticLookup } from "./cache-semantic.ts";

/** gw-test:<name> exists to run its scenario (docs/api.md "Test mode"); a cached answer would hide it. */
const testScenario = (): CacheState => ({ result: "skip", kind: null, missReason: "test_scenario", write: false, semantic: { eligible: false, reason: "test_scenario" } });

/** The request's classification (null: a test scenario, never cached) and its cache state. */
function classify(state: RequestState): { decision: CacheDecision; cache: CacheState } | null {
  const req = need(state, "request");
  if (isTestModel(req.model)) return null;
  const headerOff = state.http.headers.get("x-gw-cache")?.toLowerCase() === "off";
  // The cache's classification and keys read gw's options (cache, routing, versions) beside the request.
  const decision = decideCache(req, need(state, "options"), need(state, "analysis"), state.auth.rules, headerOff, state.inputTokens);
  const cache: CacheState = {
    result: decision.skip ? "skip" : decision.refresh ? "refresh" : "miss",
    kind: null,
    missReason: decision.skip ?? (decision.refresh ? "refresh" : null),
    write: decision.write,
    semantic: decision.semantic,
  };
  return { decision, cache };
}

/** A Redis read that never rejects: a failure is carried to whoever looks at it. */
type Read = { entry: CacheRecord | null } | { err: unknown };

/** Multi-instance: the classification and the exact read sent ahead (rate-limit stage), kept until
 * the cache stage takes them; `read` null when there is nothing to read. */
interface Prefetched {
  cache: CacheState;
  semantic: boolean;
  read: Promise<Read> | "down" | null;
  /** Computing the keys failed: treated as the lookup would treat it. */
  error?: unknown;
}
const prefetched = new WeakMap<RequestState, Prefetched>();

/** Multi-instance: classifies the request and sends its exact-cache read now, in the same tick as the
 * rate limit's script, so both ride one Redis round trip (Bun's client pipelines commands sent
 * together). The answer is used by the cache stage only if the limit admits the request. */
export function prefetchSharedAnswer(deps: Deps, state: RequestState): void {
  const answers = deps.shared?.fast.answers;
  if (!answers) return;
  const c = classify(state);
  if (c === null) {
    prefetched.set(state, { cache: testScenario(), semantic: false, read: null });
    return;
  }
  const entry: Prefetched = { cache: c.cache, semantic: c.decision.semantic.eligible, read: null };
  prefetched.set(state, entry);
  if (c.decision.skip) return;
  try {
    sharedKeys(state, c.cache);
    if (!c.decision.read) return;
    // Redis down: a miss without asking it, but for one request per retry interval that looks for it.
    entry.read = answers.outage.skip() ? "down" : answers.get(state.auth.project.id, c.cache.exactKey!, deps.clock.now()).then((found) => ({ entry: found }), (err: unknown) => ({ err }));
  } catch (err) {
    entry.error = err;
  }
}

/** The exact key and the partition (the semantic lookup and cache-store read it). */
function sharedKeys(state: RequestState, cache: CacheState): void {
  const texts = cacheKeyTexts(need(state, "request"), { projectId: state.auth.project.id, mode: state.auth.key.mode, scope: state.http.headers.get("x-gw-cache-scope"), policy: state.auth.rules.cache.keyPolicy, options: need(state, "options") });
  cache.exactKey = hashKeyText(texts.exact);
  cache.partition = hashKeyText(texts.partition);
}

export function cacheLookup(deps: Deps, state: RequestState): void | Promise<void> {
  if (deps.shared !== null) {
    const ahead = prefetched.get(state);
    if (ahead) {
      prefetched.delete(state);
      return usePrefetched(deps, state, ahead, deps.shared.fast.answers);
    }
  }
  const req = need(state, "request");
  const c = classify(state);
  if (c === null) {
    state.cache = testScenario();
    return;
  }
  const { decision, cache } = c;
  state.cache = cache;
  if (decision.skip) return;
  try {
    if (deps.shared !== null) {
      sharedKeys(state, cache);
      if (!decision.read) return;
      const answers = deps.shared.fast.answers;
      // Redis down: a miss without asking it, but for one request per retry interval that looks for it.
      if (answers.outage.skip()) return markCacheUnavailable(state);
      const read = answers.get(state.auth.project.id, cache.exactKey!, deps.clock.now()).then((found): Read => ({ entry: found }), (err: unknown): Read => ({ err }));
      return read.then((r) => sharedFound(deps, state, cache, answers, decision.semantic.eligible, r));
    }
    const texts = cacheKeyTexts(req, { projectId: state.auth.project.id, mode: state.auth.key.mode, scope: state.http.headers.get("x-gw-cache-scope"), policy: state.auth.rules.cache.keyPolicy, options: need(state, "options") });
    cache.exactKey = hashKeyText(texts.exact);
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

/** Multi-instance, the read sent ahead: the same decisions as an unprefetched lookup. */
function usePrefetched(deps: Deps, state: RequestState, ahead: Prefetched, answers: RedisAnswerStore): void | Promise<void> {
  const cache = ahead.cache;
  state.cache = cache;
  if (ahead.error !== undefined) return cacheUnavailable(deps, state, ahead.error);
  if (ahead.read === null) return;
  if (ahead.read === "down") return markCacheUnavailable(state);
  return ahead.read.then((r) => sharedFound(deps, state, cache, answers, ahead.semantic, r));
}

/** Multi-instance: the exact answer read from Redis, shared by every instance, then the semantic
 * lookup (its entries read from Redis too). A failed read is a miss, never an error answer. */
function sharedFound(deps: Deps, state: RequestState, cache: CacheState, answers: RedisAnswerStore, semantic: boolean, r: Read): void | Promise<void> {
  if ("entry" in r) {
    const entry = r.entry;
    if (entry && serveCached(deps, state, entry as CachedAnswer, "exact")) return;
    cache.missReason = entry ? "model_gone" : "not_found";
    if (semantic && deps.semantic) return semanticLookup(deps, state);
    return;
  }
  const err = r.err;
  if (!(err instanceof RedisFailure)) return cacheUnavailable(deps, state, err);
  // Redis down: every request is a miss until it answers; said once, not per request.
  markCacheUnavailable(state);
  if (answers.outage.fail()) deps.logger.error({ err }, "Redis unavailable: the response cache is skipped (misses, nothing stored) until it answers");
}
