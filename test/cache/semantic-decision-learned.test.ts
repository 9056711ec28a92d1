// The learned hit decision (docs/semantic-cache.md "Hit decision") on pairs written for this test,
// embedded by the real sentence model: a paraphrase hits, a changed content word the cosine alone
// would serve does not, and the same input always gets the same answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEmbedder } from "../../src/cache/embedder/create-embedder.ts";
import { dot, type Embedder } from "../../src/cache/embedder/types.ts";
import { HIT_MODEL, SEMANTIC_THRESHOLDS, decideSemanticHit, hitProbability, learnedFor, probabilityCut } from "../../src/cache/semantic-decision.ts";
import { FEATURE_NAMES } from "../../src/cache/semantic-pair-features.ts";

let embedder: Embedder;
beforeAll(() => {
  embedder = createEmbedder("use", { use: { timeoutMs: 60_000 } });
});
afterAll(() => embedder.close());

async function judge(stored: string, query: string, threshold: number) {
  const [a, b] = await embedder.embed([stored, query]);
  const similarity = dot(a!, b!);
  return decideSemanticHit({ text: query }, [{ id: 1, text: stored, similarity }], threshold);
}

describe("the shipped classifier", () => {
  test("is the one for the sentence model, over today's features, with stricter cuts for stricter modes", () => {
    expect(HIT_MODEL.embedder).toBe(embedder.name);
    expect(learnedFor("use-lite")).toBe(true);
    expect(learnedFor("ngram-512")).toBe(false);
    expect(HIT_MODEL.features).toEqual([...FEATURE_NAMES]);
    expect(HIT_MODEL.hidden).toHaveLength(8);
    for (const row of HIT_MODEL.hidden) expect(row).toHaveLength(FEATURE_NAMES.length + 1);
    expect(HIT_MODEL.output).toHaveLength(HIT_MODEL.hidden.length + 1);
    expect(HIT_MODEL.cuts.conservative).toBeGreaterThan(HIT_MODEL.cuts.balanced);
    expect(HIT_MODEL.cuts.balanced).toBeGreaterThan(HIT_MODEL.cuts.aggressive);
  });

  test("a project's semantic_threshold takes the cut of the strictest mode it reaches", () => {
    expect(probabilityCut(0.99)).toBe(HIT_MODEL.cuts.conservative);
    expect(probabilityCut(SEMANTIC_THRESHOLDS.balanced)).toBe(HIT_MODEL.cuts.balanced);
    expect(probabilityCut(0.95)).toBe(HIT_MODEL.cuts.balanced);
    expect(probabilityCut(0.6)).toBe(HIT_MODEL.cuts.aggressive);
  });
});

describe("learned decision with the sentence model", () => {
  test("a true paraphrase hits in balanced mode; gw.similarity is its cosine", async () => {
    const d = await judge("How do I learn to play the guitar?", "How can I learn to play guitar?", SEMANTIC_THRESHOLDS.balanced);
    expect(d).toMatchObject({ hit: true, id: 1, reason: "hit" });
    expect(d.similarity).toBe(d.cosine);
    expect(d.probability!).toBeGreaterThanOrEqual(HIT_MODEL.cuts.balanced);
  });

  test("a near-miss with one content word changed is refused although its cosine passes the threshold", async () => {
    const d = await judge("How do I lose weight quickly?", "How do I gain weight quickly?", SEMANTIC_THRESHOLDS.balanced);
    expect(d.cosine).toBeGreaterThanOrEqual(SEMANTIC_THRESHOLDS.balanced);
    expect(d).toMatchObject({ hit: false, id: 1, reason: "judged_different" });
    expect(d.probability!).toBeLessThan(HIT_MODEL.cuts.balanced);
  });

  test("below the threshold the classifier is not asked; the guard still vetoes first", async () => {
    const far = await judge("What is the best laptop for programming?", "What is the best laptop for gaming?", SEMANTIC_THRESHOLDS.balanced);
    expect(far).toMatchObject({ hit: false, reason: "below_threshold", probability: null });
    const year = decideSemanticHit({ text: "Who won the World Cup in 2018?" }, [{ id: 2, text: "Who won the World Cup in 2022?", similarity: 0.999 }], SEMANTIC_THRESHOLDS.aggressive);
    expect(year).toMatchObject({ hit: false, reason: "literal_mismatch:numbers", probability: null });
  });

  test("deterministic: the same pair gets the same probability and decision, whatever came before", async () => {
    const first = await judge("What is the capital of France?", "What is the capital of France, please?", SEMANTIC_THRESHOLDS.balanced);
    hitProbability("something else entirely", "How do I bake bread?", 0.9, 0.01);
    const again = await judge("What is the capital of France?", "What is the capital of France, please?", SEMANTIC_THRESHOLDS.balanced);
    expect(again).toEqual(first);
    expect(first.hit).toBe(true);
    expect(hitProbability("What is the capital of France, please?", "What is the capital of France?", first.cosine, 1)).toBe(first.probability!);
  });

  test("a close rival that also agrees lowers the probability", () => {
    const alone = decideSemanticHit({ text: "How do I learn programming?" }, [{ id: 1, text: "How do I start learning programming?", similarity: 0.96 }], 0.93);
    const rivalled = decideSemanticHit(
      { text: "How do I learn programming?" },
      [{ id: 1, text: "How do I start learning programming?", similarity: 0.96 }, { id: 2, text: "How should I learn to program?", similarity: 0.955 }],
      0.93,
    );
    expect(rivalled.margin).toBeCloseTo(0.005, 9);
    expect(rivalled.probability!).toBeLessThan(alone.probability!);
  });
});
