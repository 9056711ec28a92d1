// The semantic half of cache-lookup: the nearest stored questions of the partition, judged by the
// hit decision; a hit serves that entry with gw.similarity, a miss says why, a failing embedder or
// index is a miss (docs/cache.md "Semantic lookups"; docs/semantic-cache.md "Hit decision").
import { decideSemanticHit, type SemanticCandidate } from "../../cache/semantic-decision.ts";
import type { Deps } from "../deps.ts";
import { serveCached } from "../cache-slice.ts";
import { need, type RequestState } from "../state.ts";

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
    const candidates: SemanticCandidate[] = [];
    for (const n of near) {
      const entry = deps.answers.byId(projectId, n.id, now);
      if (entry?.question != null && entry.partition === cache.partition) candidates.push({ id: n.id, similarity: n.similarity, text: entry.question });
    }
    const decision = decideSemanticHit({ text: question }, candidates, state.auth.rules.cache.semanticThreshold, { learned: deps.semantic!.learnedDecision === true });
    if (decision.hit && decision.id !== null) {
      const entry = deps.answers.byId(projectId, decision.id, now);
      if (entry && serveCached(deps, state, entry, "semantic", Math.round(decision.similarity * 1e4) / 1e4)) return;
    }
    cache.missReason = decision.reason === "no_candidate" ? "not_found" : `semantic_${decision.reason}`;
    if (decision.id !== null) cache.similarity = Math.round(decision.similarity * 1e4) / 1e4;
  } catch (err) {
    // The exact store still works: the answer is stored; only this lookup missed.
    cache.missReason = "semantic_unavailable";
    deps.logger.warn({ err, request_id: state.requestId }, "semantic cache unavailable; treated as a miss");
  }
}
