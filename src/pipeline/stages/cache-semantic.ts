// The semantic half of cache-lookup: the nearest stored questions of the partition, judged by the
// hit decision; a hit serves that entry with gw.similarity, a miss says why, a failing embedder or
// index is a miss (docs/cache.md "Semantic lookups"; docs/semantic-cache.md "Hit decision").
import type { CachedAnswer } from "../../cache/answer-store-types.ts";
import { decideSemanticHit, type SemanticCandidate } from "../../cache/semantic-decision.ts";
import type { SemanticCandidate as Neighbour } from "../../cache/semantic-types.ts";
import type { Deps } from "../deps.ts";
import { markCacheUnavailable, serveCached } from "../cache-slice.ts";
import { need, type RequestState } from "../state.ts";
import { RedisFailure } from "../../store/redis/redis-call.ts";

export async function semanticLookup(deps: Deps, state: RequestState): Promise<void> {
  const cache = need(state, "cache");
  if (state.auth.test && deps.semantic!.callsProvider) {
    // Test keys never cause a live provider call: embedding the question would be one.
    cache.missReason = "semantic_test_key";
    return;
  }
  const question = need(state, "request").messages.find((m) => m.role === "user")!.content as string;
  const projectId = state.auth.project.id;
  try {
    const near = await deps.semantic!.search(projectId, cache.partition!, question);
    const now = deps.clock.now();
    if (deps.shared !== null) return await sharedJudge(deps, state, question, near, now);
    judge(deps, state, question, near, (id) => deps.answers.byId(projectId, id, now));
  } catch (err) {
    // The exact store still works: the answer is stored; only this lookup missed.
    cache.missReason = "semantic_unavailable";
    deps.logger.warn({ err, request_id: state.requestId }, "semantic cache unavailable; treated as a miss");
  }
}

/** The hit decision over the neighbours whose entries are still stored (`entryOf`: null when gone). */
function judge(deps: Deps, state: RequestState, question: string, near: readonly Neighbour[], entryOf: (id: number) => CachedAnswer | null): void {
  const cache = need(state, "cache");
  const candidates: SemanticCandidate[] = [];
  for (const n of near) {
    const entry = entryOf(n.id);
    if (entry?.question != null && entry.partition === cache.partition) candidates.push({ id: n.id, similarity: n.similarity, text: entry.question });
  }
  const decision = decideSemanticHit({ text: question }, candidates, state.auth.rules.cache.semanticThreshold, { learned: deps.semantic!.learnedDecision === true });
  if (decision.hit && decision.id !== null) {
    const entry = entryOf(decision.id);
    if (entry && serveCached(deps, state, entry, "semantic", Math.round(decision.similarity * 1e4) / 1e4)) return;
  }
  cache.missReason = decision.reason === "no_candidate" ? "not_found" : `semantic_${decision.reason}`;
  if (decision.id !== null) cache.similarity = Math.round(decision.similarity * 1e4) / 1e4;
}

/** Multi-instance: the neighbours' entries are read from Redis (one round trip, pipelined); an id
 * gone, expired or emptied since it was indexed is no candidate, so a stale index only misses.
 * Redis failing is a miss like the exact lookup's. */
async function sharedJudge(deps: Deps, state: RequestState, question: string, near: readonly Neighbour[], now: number): Promise<void> {
  const answers = deps.shared!.fast.answers;
  const projectId = state.auth.project.id;
  let entries: Map<number, CachedAnswer>;
  try {
    const read = await Promise.all(near.map((n) => answers.byId(projectId, n.id, now)));
    entries = new Map(read.flatMap((e) => (e ? [[e.id, e as CachedAnswer]] : [])));
  } catch (err) {
    if (!(err instanceof RedisFailure)) throw err;
    markCacheUnavailable(state);
    if (answers.outage.fail()) deps.logger.error({ err }, "Redis unavailable: the response cache is skipped (misses, nothing stored) until it answers");
    return;
  }
  judge(deps, state, question, near, (id) => entries.get(id) ?? null);
}
