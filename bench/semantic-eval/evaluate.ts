// Runs one protocol through the runtime pieces: the cached texts go into a VectorIndex (one
// partition), each query takes its 5 nearest, and four rules decide: raw cosine of the nearest,
// cosine plus the literal guard, the decision before issue 22 (guard and ambiguity penalty) and gw's
// decision (guard, then the learned classifier).
import { decideSemanticHit, type SemanticCandidate } from "../../src/cache/semantic-decision.ts";
import { disagreement, guardEntities, type GuardEntities } from "../../src/cache/semantic-guard.ts";
import { VectorIndex } from "../../src/cache/vector-index.ts";
import type { Protocol } from "./data.ts";

export const K = 5;
export type Rule = "cosine" | "cosine+guard" | "before" | "gw decision";
export const RULES: Rule[] = ["cosine", "cosine+guard", "before", "gw decision"];

interface Looked {
  query: { text: string; facts: GuardEntities };
  correct: Set<string>;
  candidates: SemanticCandidate[];
}

export interface Score {
  hits: number;
  correct: number;
  precision: number;
  recall: number;
}

export interface Lookups {
  looked: Looked[];
  cached: string[];
  /** Mean index search time per query (ms), and the guard + decision at the balanced threshold. */
  searchMs: number;
  decideMs: number;
  /** The decision judges with the classifier (false: an embedder it was not trained with). */
  learned: boolean;
}

export function lookUp(protocol: Protocol, vectors: Map<string, Float32Array>, dimensions: number, learned = true): Lookups {
  const index = new VectorIndex({ dimensions });
  protocol.cached.forEach((text, id) => index.add(id, vectors.get(text) ?? new Float32Array(dimensions), "eval"));
  const facts = new Map<string, GuardEntities>();
  const factsOf = (t: string): GuardEntities => facts.get(t) ?? (facts.set(t, guardEntities(t)), facts.get(t) as GuardEntities);
  let searchMs = 0;
  const looked = protocol.queries.map((q) => {
    const t0 = performance.now();
    const hits = index.search(vectors.get(q.text) ?? new Float32Array(dimensions), "eval", K);
    searchMs += performance.now() - t0;
    const candidates = hits.map((h) => {
      const text = protocol.cached[h.id] ?? "";
      return { id: h.id, text, similarity: h.similarity, facts: factsOf(text) };
    });
    return { query: { text: q.text, facts: factsOf(q.text) }, correct: q.correct, candidates };
  });
  const t1 = performance.now();
  for (const l of looked) decideSemanticHit({ text: l.query.text, facts: guardEntities(l.query.text) }, l.candidates, 0.93, { learned });
  const decideMs = (performance.now() - t1) / Math.max(1, looked.length);
  return { looked, cached: protocol.cached, searchMs: searchMs / Math.max(1, looked.length), decideMs, learned };
}

/** The cached text a rule answers with at `threshold` (and the classifier's `cut`, else the
 * threshold's), or null for a miss. */
function answer(rule: Rule, l: Looked, threshold: number, learned: boolean, cut?: number): string | null {
  const top = l.candidates[0];
  if (top === undefined) return null;
  if (rule === "cosine") return top.similarity >= threshold ? top.text : null;
  if (rule === "cosine+guard") return top.similarity >= threshold && disagreement(l.query.facts, top.facts as GuardEntities) === null ? top.text : null;
  const d = decideSemanticHit(l.query, l.candidates, threshold, rule === "before" ? { learned: false } : { cut, learned });
  return d.hit ? (l.candidates.find((c) => c.id === d.id)?.text ?? null) : null;
}

export function score(lookups: Lookups, rule: Rule, threshold: number, cut?: number): Score {
  let hits = 0;
  let correct = 0;
  for (const l of lookups.looked) {
    const text = answer(rule, l, threshold, lookups.learned, cut);
    if (text === null) continue;
    hits++;
    if (l.correct.has(text)) correct++;
  }
  const n = lookups.looked.length;
  return { hits, correct, precision: hits === 0 ? 1 : correct / hits, recall: n === 0 ? 0 : correct / n };
}

/** gw's decision at `threshold` with the cut swept: its precision once `recall` of the queries is
 * answered correctly (NaN when no cut reaches it), and that cut. */
export function precisionAtRecall(lookups: Lookups, threshold: number, recall: number): { precision: number; cut: number } {
  const judged: Array<{ p: number; correct: boolean }> = [];
  for (const l of lookups.looked) {
    const d = decideSemanticHit(l.query, l.candidates, threshold, { cut: 0, learned: lookups.learned });
    if (!d.hit || d.probability === null) continue;
    const text = l.candidates.find((c) => c.id === d.id)?.text ?? "";
    judged.push({ p: d.probability, correct: l.correct.has(text) });
  }
  judged.sort((a, b) => b.p - a.p);
  let correct = 0;
  for (let i = 0; i < judged.length; i++) {
    if (judged[i]!.correct) correct++;
    if (correct >= recall * lookups.looked.length) return { precision: correct / (i + 1), cut: judged[i]!.p };
  }
  return { precision: NaN, cut: NaN };
}
