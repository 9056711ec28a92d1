// Stage cache-lookup (gateway-api.md 4.13): classifies the request (skip rules, refresh, semantic
// eligibility), computes its keys, and answers from the exact cache, then the semantic one. A hit
// sets selected (the model that produced the answer), provider `cache`, completion and usage, and
// the pipeline skips route and call. A failing store or index is a miss, never an error.
// Writes state.cache (trace.cache).
import type { SensitiveKind } from "../../analysis/sensitive.ts";
import { decideCache } from "../../cache/policy.ts";
import { cacheKeys } from "../../cache/key.ts";
import type { CachedAnswer } from "../../cache/answer-store-types.ts";
import { isProfile } from "../../routing/profiles.ts";
import { isTestModel } from "../../providers/sandbox/scenarios.ts";
import { newCompletionId } from "../../lib/ids.ts";
import type { ChatCompletion } from "../../canonical/completion.ts";
import type { Deps } from "../deps.ts";
import type { RequestState } from "../state.ts";
import { semanticLookup } from "./cache-semantic.ts";

export interface CacheState {
  /** "hit", "miss", "skip" (a skip rule), "refresh" (cache.refresh: not read, stored) or "error". */
  result: "hit" | "miss" | "skip" | "refresh" | "error";
  kind: "exact" | "semantic" | null;
  similarity?: number;
  missReason: string | null;
  write: boolean;
  semantic: { eligible: boolean; reason: string | null };
  exactKey?: string;
  partition?: string;
  /** Set by cache-store: what was stored, or why a storable answer was not (retention redacted
   * and sensitive content: docs/retention.md). */
  stored?: { ttl_s: number; ttl_class: string; tags: string[] } | { skipped: "retention_redacted"; found: SensitiveKind };
}

const policyOf = (state: RequestState) => state.auth.project.policy as Record<string, unknown>;

/** Serves a stored answer: a fresh completion id, the answering model from the catalog. A model
 * that left the catalog makes the entry unusable (a miss). */
export function serveCached(deps: Deps, state: RequestState, entry: CachedAnswer, kind: "exact" | "semantic", similarity?: number): boolean {
  const model = deps.catalog.get(entry.model);
  if (!model) return false;
  const completion = JSON.parse(entry.body) as ChatCompletion;
  completion.id = newCompletionId();
  completion.created = Math.floor(state.createdAt / 1000);
  state.completion = completion;
  state.usage = entry.usage;
  state.selected = model;
  state.provider = "cache";
  state.profile = isProfile(state.request!.model) ? state.request!.model : null;
  state.reason = `answered from the ${kind} cache`;
  Object.assign(state.cache!, { result: "hit", kind, missReason: null, ...(similarity === undefined ? {} : { similarity }) });
  return true;
}

export function cacheLookup(deps: Deps, state: RequestState): void | Promise<void> {
  const req = state.request!;
  if (isTestModel(req.model)) {
    // gw-test:<name> exists to run its scenario (contracts.md 5); a cached answer would hide it.
    state.cache = { result: "skip", kind: null, missReason: "test_scenario", write: false, semantic: { eligible: false, reason: "test_scenario" } };
    return;
  }
  const headerOff = state.http.headers.get("x-gw-cache")?.toLowerCase() === "off";
  const decision = decideCache(req, state.analysis!, policyOf(state), headerOff, state.inputTokens);
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
    const keys = cacheKeys(req, { projectId: state.auth.project.id, mode: state.auth.key.mode, scope: state.http.headers.get("x-gw-cache-scope"), policy: policyOf(state) });
    cache.exactKey = keys.exact;
    cache.partition = keys.partition;
    if (!decision.read) return;
    const entry = deps.answers.get(state.auth.project.id, keys.exact, Date.now());
    if (entry && serveCached(deps, state, entry, "exact")) return;
    cache.missReason = entry ? "model_gone" : "not_found";
    if (decision.semantic.eligible && deps.semantic) return semanticLookup(deps, state);
  } catch (err) {
    cacheUnavailable(deps, state, err);
  }
}

/** A cache outage is a miss (4.13): the request goes on to the models; the answer is not stored. */
export function cacheUnavailable(deps: Deps, state: RequestState, err: unknown): void {
  const cache = state.cache!;
  cache.result = "error";
  cache.missReason = "cache_unavailable";
  cache.write = false;
  deps.logger.warn({ err, request_id: state.requestId }, "response cache unavailable; treated as a miss");
}
