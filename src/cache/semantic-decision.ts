// The semantic cache's hit decision (docs/semantic-cache.md "Hit decision"): the literal guard vetoes,
// the threshold admits, and a classifier trained on paraphrase data judges the pair (the ambiguity
// penalty of before when the embedder is not the one it was trained with).
import model from "./semantic-decision-model.json" with { type: "json" };
import { FEATURE_NAMES, pairFeatures, questionSide } from "./semantic-pair-features.ts";
import { disagreement, guardEntities, type GuardEntities, type GuardKind } from "./semantic-guard.ts";

export type SemanticMode = "conservative" | "balanced" | "aggressive";

export const SEMANTIC_THRESHOLDS: { readonly [M in SemanticMode]: number } = {
  conservative: 0.97,
  balanced: 0.93,
  aggressive: 0.88,
};

/** The decision before the classifier, kept for embedders it was not trained with: below this lead
 * over the runner-up the similarity is lowered, by PENALTY per unit of missing lead (0.08 at most). */
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

/** `judged_different`: admitted by the threshold and the guard, refused by the classifier. */
export type SemanticReason = "hit" | "no_candidate" | "below_threshold" | "judged_different" | `literal_mismatch:${GuardKind}`;

export interface SemanticDecision {
  hit: boolean;
  /** The candidate judged (the nearest one that agrees on literals, else the nearest); null when none. */
  id: number | null;
  /** What `gw.similarity` reports: the judged candidate's cosine (with the fallback rule, less its
   * ambiguity penalty). */
  similarity: number;
  /** Raw cosine similarity of the judged candidate. */
  cosine: number;
  /** Its lead over the nearest other candidate that also agrees on literals (1 when there is none). */
  margin: number;
  /** The classifier's probability that the two questions ask the same; null when it did not judge. */
  probability: number | null;
  reason: SemanticReason;
}

const factsOf = (q: SemanticQuestion): GuardEntities => (q.facts ??= guardEntities(q.text));
const sameText = (a: string, b: string): boolean => a.trim().replace(/\s+/g, " ").toLowerCase() === b.trim().replace(/\s+/g, " ").toLowerCase();

/** The shipped classifier (scripts/train-semantic-decision.ts writes it): a small network over
 * pairFeatures (8 tanh units, rows of weights then bias), and per mode the probability cut that met
 * the mode's target precision. */
interface HitModel {
  embedder: string;
  features: string[];
  hidden: number[][];
  output: number[];
  cuts: { readonly [M in SemanticMode]: number };
}
export const HIT_MODEL: HitModel = model;
if (HIT_MODEL.features.join() !== FEATURE_NAMES.join()) throw new Error("semantic-decision-model.json was trained on other features: run scripts/train-semantic-decision.ts");
const INPUTS = FEATURE_NAMES.length;
if (HIT_MODEL.hidden.some((row) => row.length !== INPUTS + 1) || HIT_MODEL.output.length !== HIT_MODEL.hidden.length + 1) throw new Error("semantic-decision-model.json: layer sizes do not match");

/** The probability cut for a threshold: the mode's own, or for a project's `semantic_threshold` the
 * cut of the strictest mode whose threshold it reaches (below aggressive's: aggressive's). */
export function probabilityCut(threshold: number): number {
  if (threshold >= SEMANTIC_THRESHOLDS.conservative) return HIT_MODEL.cuts.conservative;
  if (threshold >= SEMANTIC_THRESHOLDS.balanced) return HIT_MODEL.cuts.balanced;
  return HIT_MODEL.cuts.aggressive;
}

/** The classifier's probability for a query and a stored question at this cosine and margin: one
 * pass over 8 x 16 weights, no allocation beyond the features. */
export function hitProbability(query: string, stored: string, cosine: number, margin: number): number {
  const x = pairFeatures(questionSide(query), questionSide(stored), cosine, margin);
  const units = HIT_MODEL.hidden.length;
  let z = HIT_MODEL.output[units] as number;
  for (let k = 0; k < units; k++) {
    const row = HIT_MODEL.hidden[k] as number[];
    let u = row[INPUTS] as number;
    for (let j = 0; j < INPUTS; j++) u += (row[j] as number) * (x[j] as number);
    z += (HIT_MODEL.output[k] as number) * Math.tanh(u);
  }
  return 1 / (1 + Math.exp(-z));
}

export interface AmbiguityRule {
  margin: number;
  penalty: number;
}

export interface DecisionOptions {
  /** Judge with the classifier (default), or with the ambiguity penalty of before (`false`: an
   * embedder the classifier was not trained with). */
  learned?: boolean;
  /** The probability cut instead of the threshold's (the evaluation's sweep). */
  cut?: number;
  /** The fallback's constants (the evaluation's sweep). */
  rule?: AmbiguityRule;
}

/** The embedder the classifier was trained with: any other keeps the fallback rule. */
export const learnedFor = (embedderName: string): boolean => embedderName === HIT_MODEL.embedder;

const DEFAULT_RULE: AmbiguityRule = { margin: AMBIGUITY_MARGIN, penalty: AMBIGUITY_PENALTY };

/** `candidates`: the index's nearest neighbours in the query's partition, most similar first (k = 3
 * to 5 is enough). `threshold`: a mode's, or the project's `semantic_threshold`: only a candidate at
 * or above it is judged. */
export function decideSemanticHit(query: SemanticQuestion, candidates: SemanticCandidate[], threshold: number, options: DecisionOptions = {}): SemanticDecision {
  const first = candidates[0];
  if (first === undefined) return { hit: false, id: null, similarity: 0, cosine: 0, margin: 1, probability: null, reason: "no_candidate" };
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
    return { hit: false, id: first.id, similarity: first.similarity, cosine: first.similarity, margin: 1, probability: null, reason };
  }
  const pick = candidates[chosen] as SemanticCandidate;
  if (options.learned === false) {
    const rule = options.rule ?? DEFAULT_RULE;
    const margin = leadOver(q, pick, candidates, chosen, rule.margin);
    const similarity = pick.similarity - rule.penalty * Math.max(0, rule.margin - margin);
    const hit = similarity >= threshold;
    return { hit, id: pick.id, similarity, cosine: pick.similarity, margin, probability: null, reason: hit ? "hit" : "below_threshold" };
  }
  const margin = leadOver(q, pick, candidates, chosen, 1);
  const probability = hitProbability(query.text, pick.text, pick.similarity, margin);
  const hit = probability >= (options.cut ?? probabilityCut(threshold));
  return { hit, id: pick.id, similarity: pick.similarity, cosine: pick.similarity, margin, probability, reason: hit ? "hit" : "judged_different" };
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
