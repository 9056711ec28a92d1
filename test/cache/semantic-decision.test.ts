// The semantic hit decision (docs/semantic-cache.md "Hit decision"): mode thresholds, the literal
// guard, the nearest candidate that agrees on literals, and the ambiguity penalty when a rival is
// almost as close.
import { describe, expect, test } from "bun:test";
import { AMBIGUITY_MARGIN, AMBIGUITY_PENALTY, SEMANTIC_THRESHOLDS, decideSemanticHit } from "../../src/cache/semantic-decision.ts";

const q = (text: string) => ({ text });
const c = (id: number, text: string, similarity: number) => ({ id, text, similarity });
/** The decision of before, kept for embedders the classifier was not trained with. */
const FALLBACK = { learned: false };

describe("semantic hit decision (4.13: modes, guard, ambiguity)", () => {
  test(`the modes' thresholds are the documented ones (docs/semantic-cache.md "Hit decision")`, () => {
    expect(SEMANTIC_THRESHOLDS).toEqual({ conservative: 0.97, balanced: 0.93, aggressive: 0.88 });
  });

  test("no candidate is a miss", () => {
    expect(decideSemanticHit(q("anything"), [], 0.9)).toMatchObject({ hit: false, id: null, reason: "no_candidate" });
  });

  test("a lone candidate hits at or above the threshold and misses below; similarity is reported", () => {
    const cand = [c(7, "How can I reset my password?", 0.95)];
    expect(decideSemanticHit(q("How do I reset my password?"), cand, SEMANTIC_THRESHOLDS.balanced)).toMatchObject({ hit: true, id: 7, similarity: 0.95, cosine: 0.95, margin: 1, reason: "hit" });
    expect(decideSemanticHit(q("How do I reset my password?"), cand, SEMANTIC_THRESHOLDS.conservative)).toMatchObject({ hit: false, reason: "below_threshold" });
    expect(decideSemanticHit(q("How do I reset my password?"), cand, 0.95).hit).toBe(true); // a project's own semantic_threshold
  });

  test("a literal mismatch is a miss whatever the similarity, and says which literal", () => {
    const d = decideSemanticHit(q("Where is order #1234?"), [c(1, "Where is order #1235?", 0.999)], SEMANTIC_THRESHOLDS.aggressive);
    expect(d).toMatchObject({ hit: false, id: 1, reason: "literal_mismatch:numbers" });
  });

  test("the nearest candidate that agrees on literals is judged, not just the nearest", () => {
    const d = decideSemanticHit(q("Price of 3 apples?"), [c(1, "Price of 2 apples?", 0.99), c(2, "What do 3 apples cost?", 0.96)], 0.93);
    expect(d).toMatchObject({ hit: true, id: 2, cosine: 0.96 });
  });

  test("the fallback rule (another embedder): a rival that also agrees and is almost as close lowers the similarity", () => {
    const lead = 0.01;
    const d = decideSemanticHit(
      q("How do I learn programming?"),
      [c(1, "How do I start learning programming?", 0.96), c(2, "How should I learn to program?", 0.96 - lead)],
      SEMANTIC_THRESHOLDS.balanced,
      FALLBACK,
    );
    expect(d.margin).toBeCloseTo(lead, 9);
    expect(d.similarity).toBeCloseTo(0.96 - AMBIGUITY_PENALTY * (AMBIGUITY_MARGIN - lead), 9);
    expect(d).toMatchObject({ hit: false, id: 1, reason: "below_threshold" });
  });

  test("the fallback rule: rivals that differ in literals, or are the same question stored twice, do not count", () => {
    const close = [c(1, "How do I reset my password?", 0.96), c(2, "How do I reset my password in 2 minutes?", 0.955), c(3, "how do I reset my  password?", 0.955)];
    const d = decideSemanticHit(q("How can I reset my password?"), close, SEMANTIC_THRESHOLDS.balanced, FALLBACK);
    expect(d).toMatchObject({ hit: true, id: 1, margin: 1, similarity: 0.96 });
  });

  test("the fallback rule: a rival far enough behind costs nothing", () => {
    const d = decideSemanticHit(q("How do I bake bread?"), [c(1, "How can I bake bread?", 0.97), c(2, "How do I bake a cake?", 0.97 - AMBIGUITY_MARGIN)], 0.93, FALLBACK);
    expect(d).toMatchObject({ hit: true, similarity: 0.97, margin: 1 });
  });
});
