// The semantic cache's hit decision (docs/semantic-cache.md "Hit decision"): the literal guard must
// agree, and the similarity, less an ambiguity penalty when another agreeing question is almost as
// close, must reach the mode's threshold.
import { disagreement, guardEntities, type GuardEntities, type GuardKind } from "./semantic-guard.ts";

export type SemanticMode = "conservative" | "balanced" | "aggressive";

export const SEMANTIC_THRESHOLDS: { readonly [M in SemanticMode]: number } = {
  conservative: 0.97,
  balanced: 0.93,
  aggressive: 0.88,
};

/** Below this lead over the runner-up the similarity is lowered, by PENALTY per unit of missing lead:
 * with no lead at all, 0.04 * 2 = 0.08. Chosen on the evaluation sets (docs/semantic-cache.md). */
export const AMBIGUITY_MARGIN = 0.04;
export const AMBIGUITY_PENALTY = 2;

export interface SemanticQuestion {
  text: string;
  /** The guard's view of the text; computed here when absent. Cache it with a stored entry. */
  facts?: GuardEntities;
}

export interface SemanticCandidate extends SemanticQuestion {
  id: number;
  /** Cosine similarity to the query (the index's answer). */
  similarity: number;
}

export type SemanticReason = "hit" | "no_candidate" | "below_threshold" | `literal_mismatch:${GuardKind}`;

export interface SemanticDecision {
  hit: boolean;
  /** The candidate judged (the nearest one that agrees on literals, else the nearest); null when none. */
  id: number | null;
  /** Adjusted similarity, compared with the threshold; what `gw.similarity` reports on a hit. */
  similarity: number;
  /** Raw cosine similarity of the judged candidate. */
  cosine: number;
  /** Its lead over the nearest other candidate that also agrees on literals (1 when there is none). */
  margin: number;
  reason: SemanticReason;
}

const factsOf = (q: SemanticQuestion): GuardEntities => (q.facts ??= guardEntities(q.text));
const sameText = (a: string, b: string): boolean => a.trim().replace(/\s+/g, " ").toLowerCase() === b.trim().replace(/\s+/g, " ").toLowerCase();

export interface AmbiguityRule {
  margin: number;
  penalty: number;
}

const DEFAULT_RULE: AmbiguityRule = { margin: AMBIGUITY_MARGIN, penalty: AMBIGUITY_PENALTY };

/** `candidates`: the index's nearest neighbours in the query's partition, most similar first (k = 3
 * to 5 is enough). `threshold`: a mode's, or the project's `semantic_threshold`. `rule`: for the
 * evaluation's sweep; the defaults are the product's. */
export function decideSemanticHit(query: SemanticQuestion, candidates: SemanticCandidate[], threshold: number, rule: AmbiguityRule = DEFAULT_RULE): SemanticDecision {
  const first = candidates[0];
  if (first === undefined) return { hit: false, id: null, similarity: 0, cosine: 0, margin: 1, reason: "no_candidate" };
  const q = factsOf(query);
  // The nearest candidate whose literals agree: "3 apples" may sit just behind "2 apples".
  let chosen = -1;
  let mismatch: GuardKind | null = null;
  for (let i = 0; i < candidates.length && chosen < 0; i++) {
    const c = candidates[i];
    if (c === undefined || c.similarity < threshold) break; // nothing further down can pass
    const kind = disagreement(q, factsOf(c));
    if (kind === null) chosen = i;
    else mismatch ??= kind;
  }
  if (chosen < 0) {
    const reason: SemanticReason = mismatch === null ? "below_threshold" : `literal_mismatch:${mismatch}`;
    return { hit: false, id: first.id, similarity: first.similarity, cosine: first.similarity, margin: 1, reason };
  }
  const pick = candidates[chosen] as SemanticCandidate;
  const margin = leadOver(q, pick, candidates, chosen, rule.margin);
  const similarity = pick.similarity - rule.penalty * Math.max(0, rule.margin - margin);
  const hit = similarity >= threshold;
  return { hit, id: pick.id, similarity, cosine: pick.similarity, margin, reason: hit ? "hit" : "below_threshold" };
}

/** Lead of the chosen candidate over the best other one that would also pass the guard. Candidates
 * with the same text (one question stored twice) are not rivals. */
function leadOver(q: GuardEntities, pick: SemanticCandidate, candidates: SemanticCandidate[], chosen: number, within: number): number {
  for (let i = chosen + 1; i < candidates.length; i++) {
    const c = candidates[i];
    if (c === undefined || pick.similarity - c.similarity >= within) break; // too far behind to matter
    if (!sameText(c.text, pick.text) && disagreement(q, factsOf(c)) === null) return pick.similarity - c.similarity;
  }
  return 1;
}
